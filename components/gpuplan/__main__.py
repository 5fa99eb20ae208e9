from gpuplan.main import main

main()
