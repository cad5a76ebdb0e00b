/* driver-structured.c — structured problems from file to validated placement (driver-structured.h). */
#include "driver/driver-structured.h"

#include "base/error.h"
#include "base/files.h"
#include "structured/structured-check.h"
#include "structured/structured-core.h"
#include "structured/structured-json.h"
#include "structured/structured-place.h"

#include <string.h>

gboolean driver_structured_plan(const DriverStructuredJob *job, DriverStructured *r, GError **error)
{
    memset(r, 0, sizeof *r);
    if (!(r->problem = structured_json_read(job->path, error)))
        return FALSE;
    StructuredProblem *p = r->problem;
    StructuredResult res = {0};
    if (job->solution) {
        if (!(r->place = structured_json_read_solution(p, job->solution, error)))
            return FALSE;
    } else {
        if (!job->strategy->solve(p, &job->options, &res, error))
            return FALSE;
        r->place = g_steal_pointer(&res.place);
    }
    GError *e = NULL;
    if (!structured_check(p, r->place, &r->objective, &e)) {
        /* a solution file's fault, or (never meant to be) a strategy's */
        g_set_error(error, SIM_ERROR, job->solution ? SIM_ERROR_FORMAT : SIM_ERROR_UNSUPPORTED, "%s: %s%s",
                    job->solution ? job->solution : job->path, e->message,
                    job->solution ? "" : " (a fault of the strategy: please report it)");
        g_error_free(e);
        return FALSE;
    }
    /* each pool's bound, from the state the strategies place with */
    r->bound = g_new0(guint64, p->pools->len);
    StructuredState *s = structured_place_new(p, NULL);
    for (guint q = 0; s && q < p->pools->len; q++)
        r->bound[q] = structured_place_pool_bound(s, q);
    structured_place_free(s);
    r->report = (ReportStructured){.problem = p,
                                   .objective = &r->objective,
                                   .bound = r->bound,
                                   .strategy = job->solution ? NULL : job->strategy->name,
                                   .solution = job->solution,
                                   .work = res.work,
                                   .proven = res.proven,
                                   .cut = res.cut};
    return TRUE;
}

void driver_structured_clear(DriverStructured *r)
{
    structured_objective_clear(&r->objective);
    g_free(r->place);
    g_free(r->bound);
    structured_free(r->problem);
    memset(r, 0, sizeof *r);
}

gboolean driver_structured_write_solution(const DriverStructured *r, const char *path, GError **error)
{
    if (r->objective.value[STRUCTURED_OVERFLOW]) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED,
                    "%s: not written: the placement is %" G_GUINT64_FORMAT
                    " bytes over the pools' capacities, which is no solution",
                    path, r->objective.value[STRUCTURED_OVERFLOW]);
        return FALSE;
    }
    char *text = structured_json_solution(r->problem, r->place, r->report.strategy ? r->report.strategy : "solution");
    GError *e = NULL;
    gboolean ok = sim_write_file(path, text, strlen(text), &e);
    if (!ok) {
        g_set_error(error, SIM_ERROR, e->code, "%s: %s", path, e->message);
        g_error_free(e);
    }
    g_free(text);
    return ok;
}

Trace *driver_structured_core(const char *path, const char *pool, GError **error)
{
    StructuredProblem *p = structured_json_read(path, error);
    if (!p)
        return NULL;
    Trace *t = structured_core_trace(p, pool, error);
    structured_free(p);
    return t;
}
