/* files.c — reading and writing files on a user's behalf, checked (see files.h). */
#define _GNU_SOURCE /* realpath; fopencookie, for a stdout that remembers why a write failed */
#include "base/files.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static gboolean io_fail(GError **error, const char *what, int err)
{
    const char *why = err == ENOENT ? "no such file"
                      : err == EACCES ? "permission denied"
                      : err == EISDIR ? "is a directory"
                      : err == EEXIST ? "exists already"
                                      : g_strerror(err);
    g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "%s: %s", what, why);
    return FALSE;
}

/* Opens for reading without blocking on a FIFO and without a controlling terminal, then requires a
 * regular file: returns the descriptor and its size, or -1 with the error set. */
static int open_regular(const char *path, int extra_flags, guint64 *size, GError **error)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | extra_flags);
    if (fd < 0) {
        io_fail(error, "cannot read", errno);
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        io_fail(error, "cannot read", errno);
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "cannot read: %s",
                    S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file (a device, FIFO or socket)");
        close(fd);
        return -1;
    }
    *size = (guint64)st.st_size;
    return fd;
}

/* Reads exactly length bytes at offset; a file that shrank underneath is an error, not short data. */
static gboolean read_exact(int fd, guint64 offset, void *to, gsize length, GError **error)
{
    gsize done = 0;
    while (done < length) {
        ssize_t n = pread(fd, (char *)to + done, MIN(length - done, (gsize)1 << 30), (off_t)(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return io_fail(error, "cannot read", errno);
        if (n == 0) {
            g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "cannot read: the file ended early (changed while read?)");
            return FALSE;
        }
        done += (gsize)n;
    }
    return TRUE;
}

/* open_regular, and a size of at most max_bytes. */
static int open_at_most(const char *path, guint64 max_bytes, guint64 *size, GError **error)
{
    int fd = open_regular(path, 0, size, error);
    if (fd >= 0 && *size > max_bytes) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "cannot read: the file has %" G_GUINT64_FORMAT " bytes, more than "
                    "the %" G_GUINT64_FORMAT " this kind of file may have", *size, max_bytes);
        close(fd);
        return -1;
    }
    return fd;
}

GMappedFile *sim_map_file(const char *path, guint64 max_bytes, GError **error)
{
    guint64 size;
    int fd = open_at_most(path, max_bytes, &size, error);
    if (fd < 0)
        return NULL;
    GError *io = NULL;
    GMappedFile *m = g_mapped_file_new_from_fd(fd, FALSE, &io);
    close(fd);
    if (!m) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "cannot read: %s", io->message);
        g_error_free(io);
    }
    return m;
}

gboolean sim_read_file(const char *path, guint64 max_bytes, gchar **contents, gsize *len, GError **error)
{
    guint64 size;
    int fd = open_at_most(path, max_bytes, &size, error);
    if (fd < 0)
        return FALSE;
    char *buf = g_try_malloc((gsize)size + 1);
    if (!buf) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "cannot read: no memory for its %" G_GUINT64_FORMAT " bytes", size);
        close(fd);
        return FALSE;
    }
    gboolean ok = read_exact(fd, 0, buf, (gsize)size, error);
    close(fd);
    if (!ok) {
        g_free(buf);
        return FALSE;
    }
    buf[size] = '\0';
    *contents = buf;
    *len = (gsize)size;
    return TRUE;
}

gboolean sim_read_range_inside(const char *folder, const char *relative, guint64 offset, gsize length, void *to,
                               GError **error)
{
    if (!*relative || g_path_is_absolute(relative)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "'%s' is not a relative path in the model's folder", relative);
        return FALSE;
    }
    char *folder_real = realpath(folder, NULL);
    if (!folder_real)
        return io_fail(error, "cannot resolve the model's folder", errno);
    char *joined = g_build_filename(folder_real, relative, NULL);
    char *real = realpath(joined, NULL);
    g_free(joined);
    gboolean ok = FALSE;
    /* Missing and outside are one answer: a model must not learn, through our messages, whether a file
     * outside its folder exists. */
    if (!real || (strcmp(folder_real, "/") && (!g_str_has_prefix(real, folder_real) || real[strlen(folder_real)] != '/'))) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "'%s' is not a file inside the model's folder", relative);
    } else {
        guint64 size, end;
        int fd = open_regular(real, O_NOFOLLOW, &size, error);
        if (fd >= 0) {
            if (!g_uint64_checked_add(&end, offset, length) || end > size)
                g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "the range of %" G_GSIZE_FORMAT " bytes at offset %"
                            G_GUINT64_FORMAT " lies past its end (%" G_GUINT64_FORMAT " bytes)", length, offset, size);
            else
                ok = read_exact(fd, offset, to, length, error);
            close(fd);
        }
    }
    free(real);
    free(folder_real);
    return ok;
}

static gboolean write_in_place(const char *path, const void *data, gsize len, GError **error)
{
    int fd = open(path, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return io_fail(error, "cannot write", errno);
    gsize done = 0;
    while (done < len) {
        ssize_t n = write(fd, (const char *)data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int err = n < 0 ? errno : EIO;
            close(fd);
            return io_fail(error, "cannot write", err);
        }
        done += (gsize)n;
    }
    if (close(fd) != 0)
        return io_fail(error, "cannot write", errno);
    return TRUE;
}

gboolean sim_write_file(const char *path, const void *data, gsize len, GError **error)
{
    GStatBuf st;
    if (g_lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode))
            return io_fail(error, "cannot write", EISDIR);
        return write_in_place(path, data, len, error);
    }
    GError *io = NULL;
    if (!g_file_set_contents_full(path, data, (gssize)len,
                                  G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_ONLY_EXISTING, 0666, &io)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "cannot write: %s",
                    io->code == G_FILE_ERROR_NOENT ? "no such folder" : io->code == G_FILE_ERROR_ACCES ? "permission denied"
                                                                                                  : io->message);
        g_error_free(io);
        return FALSE;
    }
    return TRUE;
}

gboolean sim_create_file(const char *path, const void *data, gsize len, GError **error)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0666);
    if (fd < 0)
        return errno == EEXIST ? io_fail(error, "cannot create", EEXIST) : io_fail(error, "cannot create", errno);
    const guint8 *p = data;
    gsize done = 0;
    int err = 0;
    while (done < len && !err) {
        ssize_t n = write(fd, p + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            err = n < 0 ? errno : EIO;
        else
            done += (gsize)n;
    }
    if (close(fd) != 0 && !err)
        err = errno;
    if (!err)
        return TRUE;
    g_unlink(path); /* the file this call created, and only it */
    return io_fail(error, "cannot write", err);
}

/* The first error a write to standard output met: stdio keeps only that one happened, and by the end errno
 * says something else (a write that failed mid-report left "Input/output error" for "No space left"). */
static int stdout_errno;

static ssize_t stdout_write(void *cookie, const char *buf, size_t len)
{
    (void)cookie;
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(STDOUT_FILENO, buf + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (!stdout_errno)
                stdout_errno = n < 0 ? errno : EIO;
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)n;
    }
    return (ssize_t)len;
}

void sim_stdout_guard(void)
{
    cookie_io_functions_t io = {.write = stdout_write};
    FILE *out = fopencookie(NULL, "w", io);
    if (!out)
        return; /* stdout as it was: its errors are still caught, only less precisely */
    setvbuf(out, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, (size_t)1 << 16);
    stdout = out;
}

gboolean sim_stdout_finish(GError **error)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout))
        return io_fail(error, "cannot write", stdout_errno ? stdout_errno : errno ? errno : EIO);
    return TRUE;
}
