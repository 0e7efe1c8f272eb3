from osmark.cli import main

main()
