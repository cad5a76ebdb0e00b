/* driver-structured.h — a structured problem (schema-v1, docs/structured.md) from its file to a validated
 * placement: read and checked, placed by a structured strategy or replayed from a solution envelope, checked by
 * the independent validator, with each pool's lower bound; and a pool's capacity-free projection as a trace for
 * the ordinary pipeline. The command and the API call these. */
#ifndef SIM_DRIVER_STRUCTURED_H
#define SIM_DRIVER_STRUCTURED_H

#include "report/report-structured.h"
#include "structured/structured-strategy.h"
#include "trace/trace.h"

typedef struct {
    const char *path; /* the problem */
    const StructuredStrategy *strategy;
    StructuredOptions options;
    const char *solution; /* a solution envelope to check instead of placing (NULL: place) */
} DriverStructuredJob;

typedef struct {
    StructuredProblem *problem;
    StructuredPlace *place; /* one per buffer */
    StructuredObjective objective;
    guint64 *bound;          /* per pool */
    ReportStructured report; /* points into the above */
} DriverStructured;

gboolean driver_structured_plan(const DriverStructuredJob *job, DriverStructured *r, GError **error);
void driver_structured_clear(DriverStructured *r);
/* The placement as a solution envelope at `path` (a placement over capacity is no solution: refused). */
gboolean driver_structured_write_solution(const DriverStructured *r, const char *path, GError **error);
/* The capacity-free projection of one pool (its name or id) of the problem at `path`, as a trace. */
Trace *driver_structured_core(const char *path, const char *pool, GError **error);

#endif
