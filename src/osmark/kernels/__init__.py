"""C sources of osmark's native kernels, and build.py, which compiles and caches them."""
