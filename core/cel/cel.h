/* CEL device selectors (resource.k8s.io DeviceClass and request
 * selectors): the subset of the Common Expression Language that device
 * selectors use, compiled once into a tree and evaluated against one
 * device at a time in C.
 *
 * Why an interpreter in C rather than compiling to Lua: a selector runs
 * once per device per node in Filter, the scheduler's hot path, where no
 * Lua call per node is allowed; its cost must be counted exactly (the
 * API's limit is in CEL cost units, not time), and errors must be values
 * with CEL's rules (`false && error` is false). A small tree walker over
 * the device's interned attributes does all three without an allocation
 * per evaluation.
 *
 * Supported: literals (int, uint with `u`, double, string, bool, null,
 * lists), `device.driver`, `device.attributes[DOMAIN].ID`,
 * `device.capacity[DOMAIN].ID` (and `[ID]` indexing), `! - * / % + < <=
 * > >= == != && || ?: in`, `has()`, `size()`, the string functions
 * startsWith, endsWith, contains, lowerAscii, upperAscii, `quantity()`,
 * `isQuantity()`, `semver()`, `isSemver()`, and on quantities and
 * versions compareTo, isGreaterThan, isLessThan (quantities also sign,
 * asInteger; versions major, minor, patch). */
#ifndef MOONSCHED_CEL_H
#define MOONSCHED_CEL_H

#include <stdbool.h>
#include <stdint.h>

#include "api/dra.h"
#include "moonsched/arena.h"
#include "moonsched/error.h"
#include "moonsched/intern.h"

/* upstream's limits for a device selector (resource/v1 types.go) */
#define MS_CEL_MAX_LENGTH (10 * 1024)
#define MS_CEL_MAX_COST 1000000

typedef struct ms_cel_node ms_cel_node;

/* A compiled expression; its tree lives in the arena given to compile. */
typedef struct ms_cel_program {
    const ms_cel_node *root;
} ms_cel_program;

/* Parses and checks `expr`. Errors read like cel-go's: "<input>:1:8:
 * undeclared reference to 'dev'". */
ms_rc ms_cel_compile(const char *expr, ms_arena *a, ms_cel_program *out, ms_error *err);

/* The device an expression sees: its driver (the domain of attribute and
 * capacity names without one) and its attributes and capacity. */
typedef struct ms_cel_device {
    const char *driver;
    const ms_device *device;
    const ms_interner *in;
} ms_cel_device;

typedef enum ms_cel_result { MS_CEL_FALSE = 0, MS_CEL_TRUE, MS_CEL_ERROR } ms_cel_result;

/* Evaluates against one device. MS_CEL_ERROR with the reason in err: a
 * runtime error ("no such key: model"), a non-bool result, or more than
 * `cost_limit` cost units ("actual cost limit exceeded"). *cost gets the
 * units used. `scratch` holds intermediate values (reset by the caller). */
ms_cel_result ms_cel_eval(const ms_cel_program *p, const ms_cel_device *d, int64_t cost_limit, ms_arena *scratch,
                          int64_t *cost, ms_error *err);

#endif
