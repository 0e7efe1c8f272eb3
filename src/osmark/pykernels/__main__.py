import sys

from osmark.pykernels import main

sys.exit(main(sys.argv[1:]))
