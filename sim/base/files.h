/* files.h — the only place that opens a file on a user's behalf, and what it guarantees:
 *  - reading: only regular files (a FIFO, a device or a directory is refused before a byte is read, so
 *    `--graph /dev/zero` or a FIFO cannot hang or exhaust memory), at most a stated size, checked before
 *    reading;
 *  - reading a model's side file (ONNX external data): the real path (symlinks resolved) must lie under the
 *    model's own folder, be a regular file, and hold the requested range; only that range is read;
 *  - writing: a missing or regular file is replaced atomically (a temporary beside it, renamed over it,
 *    so a failed write leaves the old file); anything else (a device like /dev/null, a FIFO, a symlink) is
 *    written in place and never replaced; every write and close is checked; files a run makes in a folder of
 *    its own (--dump-outputs) are created new, never over anything;
 *  - stdout: flushed and checked once at the end, so `sim ... > /dev/full` fails with a message.
 * Failures are SIM_ERROR_IO errors without the path (callers add it where their messages want it). */
#ifndef SIM_FILES_H
#define SIM_FILES_H

#include "base/error.h"

#include <glib.h>

/* The largest files read: a protobuf message cannot exceed 2 GiB; a text file (trace, table, bins) 1 GiB. */
#define SIM_MODEL_MAX_BYTES ((guint64)2 << 30)
#define SIM_TEXT_MAX_BYTES ((guint64)1 << 30)

/* Reads a whole regular file of at most max_bytes; the contents are NUL-terminated (outside len). */
gboolean sim_read_file(const char *path, guint64 max_bytes, gchar **contents, gsize *len, GError **error);
/* Maps a whole regular file of at most max_bytes read-only (its pages are read as they are touched, and held by
 * the system's cache rather than the process): a header can be read without its data. Free with
 * g_mapped_file_unref. */
GMappedFile *sim_map_file(const char *path, guint64 max_bytes, GError **error);
/* Reads length bytes at offset of `relative`, a file that must resolve (symlinks followed) to a regular
 * file under `folder`. */
gboolean sim_read_range_inside(const char *folder, const char *relative, guint64 offset, gsize length, void *to,
                               GError **error);
/* Writes len bytes to path: atomically over a missing or regular file, in place over anything else. */
gboolean sim_write_file(const char *path, const void *data, gsize len, GError **error);
/* Creates path as a new regular file holding len bytes: nothing that exists there is opened (O_EXCL: not a
 * file, a symlink or a FIFO), so nothing is replaced or written through; a failed write removes the file it
 * created. "exists already" when the path does. */
gboolean sim_create_file(const char *path, const void *data, gsize len, GError **error);
/* Puts a stream over standard output that remembers the first error a write met (call before any output). */
void sim_stdout_guard(void);
/* Flushes stdout and reports whether every write to it went through, with the first error's reason. */
gboolean sim_stdout_finish(GError **error);

#endif
