/* The end of a JSON report: what every command that prints JSON does with
 * its generator. */
#ifndef A2_CLI_JSON_H
#define A2_CLI_JSON_H

#include <stdbool.h>
#include <stdio.h>
#include <yajl/yajl_gen.h>

/* Write g's text to out, then a newline when `newline`, and free g (owned by
 * the call from here on). */
void a2_json_finish(yajl_gen g, FILE *out, bool newline);

#endif
