/* alias-block.c — owner/alias bookkeeping with ownership transfer (see alias-block.h). */
#include "memory/alias-block.h"

#include <string.h>

AliasBlock *alias_block_new(const char *owner)
{
    AliasBlock *b = g_new0(AliasBlock, 1);
    b->owner = g_strdup(owner);
    g_queue_init(&b->aliases);
    b->where = g_hash_table_new(g_str_hash, g_str_equal);
    return b;
}

void alias_block_free(AliasBlock *b)
{
    if (!b)
        return;
    g_free(b->owner);
    g_queue_clear_full(&b->aliases, g_free);
    g_hash_table_unref(b->where);
    g_free(b);
}

void alias_block_add(AliasBlock *b, const char *alias)
{
    g_queue_push_tail(&b->aliases, g_strdup(alias));
    g_hash_table_insert(b->where, b->aliases.tail->data, b->aliases.tail);
}

gboolean alias_block_release(AliasBlock *b, const char *name)
{
    if (b->is_free)
        return FALSE;
    if (b->owner && !strcmp(b->owner, name)) {
        g_free(b->owner);
        b->owner = NULL;
        if (b->aliases.length) { /* ownership passes to the first alias */
            b->owner = g_queue_pop_head(&b->aliases);
            g_hash_table_remove(b->where, b->owner);
            return FALSE;
        }
        b->is_free = TRUE;
        return TRUE;
    }
    GList *link = g_hash_table_lookup(b->where, name);
    if (link) {
        g_hash_table_remove(b->where, name);
        g_free(link->data);
        g_queue_delete_link(&b->aliases, link);
    }
    return FALSE;
}
