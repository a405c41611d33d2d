/* Common includes for the cmocka unit tests. */
#ifndef MOONSCHED_TESTUTIL_H
#define MOONSCHED_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#endif
