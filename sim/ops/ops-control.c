/* ops-control.c — If, Loop and Scan. An If whose condition is known before running (a constant, or shape
 * arithmetic folded at plan time) is replaced by the branch it takes (fold_if), whose nodes are then
 * planned and run like any others. Otherwise the bodies are kept in the graph model, and planning treats
 * such a node as one compute op: its output shapes come from the file (value_info or graph output
 * types, with symbolic dims bound), or for If from the then-branch's declared outputs. */
#include "ops/ops-families.h"

static gboolean static_type(const TypeInfo *t)
{
    if (!t || t->rank < 0 || t->dtype == DT_UNDEFINED)
        return FALSE;
    for (int k = 0; k < t->rank; k++)
        if (t->dims[k] < 0)
            return FALSE;
    return TRUE;
}

gboolean infer_control(const OpInfo *op, Node *n, gint64 opset, GError **error)
{
    (void)op;
    (void)opset;
    const Attr *then_branch = node_attr(n, "then_branch");
    for (guint k = 0; k < n->outputs->len; k++) {
        Tensor *t = n->outputs->pdata[k];
        if (!t)
            continue;
        const TypeInfo *type = t->declared;
        if (!static_type(type) && then_branch && then_branch->g && k < then_branch->g->outputs->len)
            type = ((Tensor *)then_branch->g->outputs->pdata[k])->declared;
        if (!static_type(type))
            return infer_fail(error, n, "output '%s' needs a static shape in value_info (subgraph ops are "
                              "planned as one compute op and their shapes are not inferred)", t->name);
        if (!infer_set_output(n, k, type->dtype, type->rank, type->dims, error))
            return FALSE;
    }
    return TRUE;
}

gboolean fold_if(Graph *g, Node *n, gboolean *folded, GError **error)
{
    *folded = FALSE;
    const Tensor *cond = node_input(n, 0);
    if (!g || g->parent || !cond || !cond->value || cond->value->n != 1)
        return TRUE;
    const char *taken = value_get_f(cond->value, 0) != 0 ? "then_branch" : "else_branch";
    const Attr *branch = node_attr(n, taken);
    if (!branch || !branch->g)
        return infer_fail(error, n, "attribute '%s' is not a graph", taken);
    if (branch->g->outputs->len != n->outputs->len)
        return infer_fail(error, n, "%s has %u outputs for the If's %u", taken, branch->g->outputs->len, n->outputs->len);
    if (!graph_inline_subgraph(g, n, branch->g, error))
        return FALSE;
    *folded = TRUE;
    return TRUE;
}
