/* Every file the program writes (a timeline, a trace from gen, a sweep's
 * CSV, plot script and crossovers, a fitted config) goes through this: it
 * is written under a temporary name in the same directory (PATH.tmpXXXXXX)
 * and renamed onto PATH only once every byte is written, flushed and
 * synced. A failure (an unwritable directory, a full disk, a write error at
 * any point) leaves PATH as it was - no half-written file that looks
 * complete - removes the temporary and is reported once, naming PATH and
 * the reason (A2_E_IO, exit 2).
 *
 * A PATH that exists and is not a regular file (/dev/stdout, /dev/full, a
 * FIFO) is written in place: it cannot hold a partial file, and is never
 * renamed onto or removed. If memory runs out mid-run (common/oom.h), the
 * temporaries of outputs still open are removed before the process exits. */
#ifndef A2_OUTFILE_H
#define A2_OUTFILE_H

#include <stdio.h>

#include "common/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct a2_outfile a2_outfile;

/* Start writing PATH (kept, copied). On success *out owns the temporary
 * file and a2_outfile_stream gives its stream; on failure *out is NULL and
 * nothing was created. `what` names the output in messages ("the timeline"). */
a2_code a2_outfile_open(const char *path, const char *what, a2_outfile **out, a2_err *err);

FILE *a2_outfile_stream(const a2_outfile *o);

/* Note a write error the caller found itself (errno value): commit fails. */
void a2_outfile_fail(a2_outfile *o, int errnum);

/* Finish: flush, check for any write error, sync, close and rename onto
 * PATH. On failure PATH is untouched, the temporary removed, err names PATH.
 * Frees o either way (NULL: A2_OK). */
a2_code a2_outfile_commit(a2_outfile *o, a2_err *err);

/* Give up: close and remove the temporary, leave PATH untouched, free o. */
void a2_outfile_discard(a2_outfile *o);

#ifdef __cplusplus
}
#endif
#endif
