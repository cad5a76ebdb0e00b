/* alias-block.c — owner/alias bookkeeping with ownership transfer (see alias-block.h). */
#include "alias-block.h"

#include <string.h>

AliasBlock *alias_block_new(const char *owner)
{
    AliasBlock *b = g_new0(AliasBlock, 1);
    b->owner = g_strdup(owner);
    b->aliases = g_ptr_array_new_with_free_func(g_free);
    return b;
}

void alias_block_free(AliasBlock *b)
{
    if (!b)
        return;
    g_free(b->owner);
    g_ptr_array_unref(b->aliases);
    g_free(b);
}

void alias_block_add(AliasBlock *b, const char *alias) { g_ptr_array_add(b->aliases, g_strdup(alias)); }

gboolean alias_block_release(AliasBlock *b, const char *name)
{
    if (b->is_free)
        return FALSE;
    if (b->owner && !strcmp(b->owner, name)) {
        g_free(b->owner);
        b->owner = NULL;
        if (b->aliases->len) { /* ownership passes to the first alias */
            b->owner = g_ptr_array_steal_index(b->aliases, 0);
            return FALSE;
        }
        b->is_free = TRUE;
        return TRUE;
    }
    for (guint k = 0; k < b->aliases->len; k++)
        if (!strcmp(b->aliases->pdata[k], name)) {
            g_ptr_array_remove_index(b->aliases, k);
            return FALSE;
        }
    return FALSE;
}
