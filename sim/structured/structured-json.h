/* structured-json.h — schema-v1 files (docs/structured.md): the problem document read into a StructuredProblem,
 * the solution envelope written and read back. Every field of the format is either honoured or refused with one
 * line naming it (FILE: root.problem.buffers[3].size: ...); the document is checked against the format's rules
 * (unique ids, known references, the profile's contract) before anything is planned. */
#ifndef SIM_STRUCTURED_JSON_H
#define SIM_STRUCTURED_JSON_H

#include "structured/structured.h"

#include <glib.h>

/* The most buffers, pools and pairs (of every kind together) a document may hold. */
#define STRUCTURED_MAX_BUFFERS (1u << 22)
#define STRUCTURED_MAX_PAIRS (1u << 24)

/* Whether a --trace file is a structured problem: its name ends in .json. */
gboolean structured_json_is_problem_path(const char *path);
StructuredProblem *structured_json_read(const char *path, GError **error);
StructuredProblem *structured_json_parse(const char *text, gsize len, const char *path, GError **error);
/* The solution envelope of `place` (one per buffer) as JSON text: the problem's profile, instance and
 * fingerprint, metadata (string values) and one placement per buffer with the file's ids. Newly allocated. */
char *structured_json_solution(const StructuredProblem *p, const StructuredPlace *place, const char *strategy);
/* Reads a solution envelope for `p`: its schema version, profile, instance and fingerprint must be the
 * problem's, and it must place every buffer once in a pool the problem has. Returns one place per buffer. */
StructuredPlace *structured_json_read_solution(const StructuredProblem *p, const char *path, GError **error);

#endif
