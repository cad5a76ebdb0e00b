/* error.c — the quark of the error domain (see error.h). */
#include "base/error.h"

G_DEFINE_QUARK(sim-error-quark, sim_error)
