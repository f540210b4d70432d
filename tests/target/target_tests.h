/* Target-only self-checks of the foundation that end the run (see tests/suites/10-foundation.sh). */
#ifndef ANEFW_TARGET_TESTS_H
#define ANEFW_TARGET_TESTS_H

/* Acts on "mode=..." in the command line: dataabort, textwrite, stackoverflow, icount, el.
 * Returns only when no mode is given. */
void target_tests_dispatch(const char *cmdline);

#endif
