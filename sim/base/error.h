/* error.h — the one error domain every room reports in (GError's domain and codes). The lowest header of
 * the house: it includes only GLib, and everything may include it. */
#ifndef SIM_ERROR_H
#define SIM_ERROR_H

#include <glib.h>

#define SIM_ERROR (sim_error_quark())
GQuark sim_error_quark(void);
typedef enum {
    SIM_ERROR_IO,      /* a file cannot be read or written */
    SIM_ERROR_FORMAT,  /* the bytes are not a well-formed model, trace or list */
    SIM_ERROR_GRAPH,   /* the graph breaks a structural rule (undefined tensor, cycle, ...) */
    SIM_ERROR_SHAPE,   /* shapes or attributes are inconsistent */
    SIM_ERROR_UNSUPPORTED, /* well-formed, but outside what the simulator handles */
    SIM_ERROR_USAGE,   /* a command-line mistake */
} SimErrorCode;

#endif
