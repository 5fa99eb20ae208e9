"""dra-gpu-platform's CrossGuard policy pack. Rules live in the *_rules modules (importable without starting
the analyzer); `__main__.py` holds only the PolicyPack, which the Pulumi CLI runs."""
