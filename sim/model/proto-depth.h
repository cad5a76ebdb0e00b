/* proto-depth.h — how deeply a protobuf message nests, read from its bytes before protobuf-c unpacks them.
 * protobuf-c's unpacking recurses once per nested message, on the caller's stack, with no limit of its own:
 * a model of a few hundred kilobytes that nests If subgraphs thousands deep overflows the stack before the
 * reader could count subgraph levels. The scan walks the wire format with the message's descriptor (so it
 * knows which length-delimited fields are messages), iteratively, and stops at the first level past the
 * limit. */
#ifndef SIM_MODEL_PROTO_DEPTH_H
#define SIM_MODEL_PROTO_DEPTH_H

#include <glib.h>
#include <protobuf-c/protobuf-c.h>

/* FALSE when a message inside data (a message of type d) nests more than max_depth levels below the top.
 * Malformed bytes end the scan with TRUE: unpacking then rejects them with its own message. */
gboolean proto_depth_within(const ProtobufCMessageDescriptor *d, const guint8 *data, gsize len, guint max_depth);

#endif
