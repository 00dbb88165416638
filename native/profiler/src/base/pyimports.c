/* The directories that held a Python module file, for the import system's rule (pyimports.h). */
#include "base/pyimports.h"

uint64_t jobio_python_dirs[JOBIO_PYDIRS];
