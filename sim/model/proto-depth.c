/* proto-depth.c — the nesting depth of a protobuf message, without recursion (see proto-depth.h). */
#include "model/proto-depth.h"

/* Reads a varint at *pos (before end); FALSE when it runs past end or past 10 bytes. */
static gboolean read_varint(const guint8 *data, gsize end, gsize *pos, guint64 *out)
{
    guint64 v = 0;
    for (guint shift = 0; shift < 70 && *pos < end; shift += 7) {
        guint8 b = data[(*pos)++];
        v |= (guint64)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return TRUE;
        }
    }
    return FALSE;
}

typedef struct {
    const ProtobufCMessageDescriptor *d;
    gsize end;
} Level;

gboolean proto_depth_within(const ProtobufCMessageDescriptor *d, const guint8 *data, gsize len, guint max_depth)
{
    Level *stack = g_new(Level, (gsize)max_depth + 2);
    guint depth = 0;
    stack[0] = (Level){d, len};
    gsize pos = 0;
    gboolean within = TRUE;
    while (within) {
        while (depth > 0 && pos >= stack[depth].end) /* the message at this level is done */
            depth--;
        if (pos >= stack[depth].end)
            break; /* the top message is done */
        guint64 key, value;
        if (!read_varint(data, stack[depth].end, &pos, &key))
            break;
        switch (key & 7) {
        case 0: /* varint */
            if (!read_varint(data, stack[depth].end, &pos, &value))
                goto malformed;
            break;
        case 1: /* 64 bits */
        case 5: /* 32 bits */
            if (stack[depth].end - pos < ((key & 7) == 1 ? 8u : 4u))
                goto malformed;
            pos += (key & 7) == 1 ? 8 : 4;
            break;
        case 2: { /* length-delimited: a message descends, anything else is skipped */
            if (!read_varint(data, stack[depth].end, &pos, &value) || value > stack[depth].end - pos)
                goto malformed;
            const ProtobufCFieldDescriptor *f =
                key >> 3 <= G_MAXUINT32 ? protobuf_c_message_descriptor_get_field(stack[depth].d, (unsigned)(key >> 3)) : NULL;
            if (f && f->type == PROTOBUF_C_TYPE_MESSAGE && value > 0) {
                if (depth == max_depth) {
                    within = FALSE;
                    break;
                }
                stack[++depth] = (Level){f->descriptor, pos + value};
            } else {
                pos += value;
            }
            break;
        }
        default: /* groups (3, 4) and the unused 6, 7: protobuf-c refuses them */
            goto malformed;
        }
    }
malformed:
    g_free(stack);
    return within;
}
