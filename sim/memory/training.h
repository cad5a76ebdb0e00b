/* training.h — a training step's memory by role. A model written by graphs/export_training.py (docs/training.md)
 * names its roles in the model's metadata, one tensor name per line: arenasim.training.loss (the loss),
 * .parameters, .buffers (the module's state: batch-norm statistics) and .optimizer_state (graph inputs), and
 * .gradients (tensors). The forward is every node the loss depends on, the backward every node that depends on
 * the loss; a saved activation is a tensor the forward makes and the backward reads. Two floors under the arena no
 * order goes below: the fewest bytes live just after the loss is made, over every order (the report's "at the
 * loss" line: the state, the saved activations, the batch the backward reads, found as a minimum cut so that nodes
 * of neither part count at their cheapest side), the outputs' bytes, live at the end ("at the end"), and the most
 * every order holds while one node runs ("at a step": the same cut at each node). Every buffer of the plan's trace
 * gets one role: the first of parameters, buffers, optimizer state, batch (the other graph inputs), gradients, saved
 * activations that any tensor sharing its bytes has, else transient; the report gives each role's buffers and
 * bytes, and the bytes live at the trace's peak step. */
#ifndef SIM_MEMORY_TRAINING_H
#define SIM_MEMORY_TRAINING_H

#include "memory/alias.h"

typedef enum {
    TRAINING_PARAMETERS,
    TRAINING_BUFFERS,
    TRAINING_OPTIMIZER_STATE,
    TRAINING_BATCH,
    TRAINING_GRADIENTS,
    TRAINING_SAVED,
    TRAINING_TRANSIENT,
    TRAINING_ROLE_COUNT
} TrainingRole;

/* "parameters", "buffers", "optimizer state", "batch", "gradients", "saved activations", "transient" */
const char *training_role_name(TrainingRole r);
/* The same as a json member: "parameters", ..., "optimizer_state", "saved_activations" */
const char *training_role_key(TrainingRole r);

/* The roles a model names: per tensor id, the role (TRAINING_TRANSIENT: none). */
typedef struct {
    guint n_tensors;
    TrainingRole *role;  /* per tensor id */
    char *loss;          /* the loss's name */
} TrainingRoles;

/* The roles of a model (NULL and no error when its metadata names none). FALSE with a usage error naming the key
 * and the name when a name is not a graph input (parameters, buffers, optimizer state) or not a tensor of the
 * graph (loss, gradients), a name is given twice, or roles are given without the loss. */
gboolean training_roles_read(const Model *m, TrainingRoles **out, GError **error);
void training_roles_free(TrainingRoles *r);

typedef struct {
    gboolean present;
    guint buffers[TRAINING_ROLE_COUNT];
    guint64 bytes[TRAINING_ROLE_COUNT];   /* each role's buffers, whole */
    guint64 at_peak[TRAINING_ROLE_COUNT]; /* ... live at the peak step */
    guint peak_step;                      /* the first step of the trace's most live bytes */
    guint64 floor;                        /* the fewest bytes live just after the loss is made, in any order */
    guint64 end_floor;                    /* bytes of the buffers live at the end in every order: the outputs' */
    guint64 step_floor;                   /* the most every order holds while one node runs (at least floor) */
} TrainingSummary;

/* Each buffer of t (the map's trace: its buffers are named by their root tensors) by role. */
void training_account(const TrainingRoles *r, const AliasMap *m, const Trace *t, TrainingSummary *out);

#endif
