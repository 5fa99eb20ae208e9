from gpuplan.cli.app import main

main()
