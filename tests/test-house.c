/* test-house.c — the house's rules, read from the source tree: every room (sim/<room>/, strategies/,
 * graphs/) has a README whose `May include:` line names the rooms it may include; every quoted #include of
 * a library file stays within those (lower rooms never include higher ones) and names a file that exists;
 * the files, taken as units (name.c with name.h), include each other without a circle; every source
 * file opens with a comment saying what it is for; and the linked symbols follow the same rules as the
 * includes (an object uses only functions and data its room may include); every exported name starts with its
 * file's prefix or a prefix its room's README gives (`Prefixes:`), no prefix given by two rooms. The checker itself is tested
 * on made-up violations. */
#include "exec/kernel-table.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

typedef struct {
    GHashTable *allowed;  /* room -> GHashTable set of rooms it may include (NULL value: every room) */
    GHashTable *prefixes; /* room -> GStrv: the prefixes its README's `Prefixes:` line gives its exported names */
    GHashTable *units;    /* unit ("sim/plan/place") -> GHashTable set of units it includes */
    GHashTable *calls;    /* unit -> GHashTable set of units whose functions or data its object uses */
    GPtrArray *problems;  /* one line per broken rule */
} House;

static const char *source_dir(void)
{
    const char *dir = g_getenv("SIM_SOURCE_DIR");
    return dir ? dir : ".";
}

/* The room a repository path belongs to: "sim/plan/place.c" -> "plan", "strategies/x.c" -> "strategies". */
static char *room_of_path(const char *path)
{
    char **parts = g_strsplit(path, "/", 3);
    char *room = NULL;
    if (parts[0] && parts[1] && !strcmp(parts[0], "sim") && parts[2])
        room = g_strdup(parts[1]);
    else if (parts[0] && parts[1])
        room = g_strdup(parts[0]);
    g_strfreev(parts);
    return room;
}

/* The room an include names: its first component ("plan/place.h" -> "plan", "strategies/search/search.h" ->
 * "strategies"); the generated ONNX schema is the model room's. */
static char *room_of_include(const char *include)
{
    if (!strcmp(include, "onnx.pb-c.h"))
        return g_strdup("model");
    const char *slash = strchr(include, '/');
    return slash ? g_strndup(include, slash - include) : g_strdup("");
}

/* The repository path an include resolves to (the build's include folders: sim/ then the top). */
static char *include_path(const char *include)
{
    if (g_str_has_prefix(include, "strategies/") || g_str_has_prefix(include, "graphs/") ||
        g_str_has_prefix(include, "tests/"))
        return g_strdup(include);
    return g_strconcat("sim/", include, NULL);
}

static char *unit_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot ? g_strndup(path, dot - path) : g_strdup(path);
}

/* Whether `room` may include a header of `target` under the rules read so far. */
static gboolean house_allows(const House *h, const char *room, const char *target)
{
    if (!strcmp(room, target))
        return TRUE;
    GHashTable *set;
    if (!g_hash_table_lookup_extended(h->allowed, room, NULL, (gpointer *)&set))
        return FALSE;
    return !set || g_hash_table_contains(set, target);
}

/* Reads "May include: a, b" (or "every room, x" / "nothing ...") from a room's README. */
static void house_read_rule(House *h, const char *room, const char *readme_path)
{
    char *full = g_build_filename(source_dir(), readme_path, NULL), *text = NULL;
    if (!g_file_get_contents(full, &text, NULL, NULL)) {
        g_ptr_array_add(h->problems, g_strdup_printf("room %s has no %s", room, readme_path));
        g_free(full);
        return;
    }
    const char *line = strstr(text, "\nMay include:");
    if (!line) {
        g_ptr_array_add(h->problems, g_strdup_printf("%s has no 'May include:' line", readme_path));
    } else {
        line += strlen("\nMay include:");
        char *rule = g_strndup(line, strcspn(line, "\n"));
        GHashTable *set = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        gboolean every = FALSE;
        char **names = g_strsplit(rule, ",", -1);
        for (char **n = names; *n; n++) {
            char *name = g_strstrip(*n);
            if (!strcmp(name, "every room"))
                every = TRUE;
            else if (*name && !g_str_has_prefix(name, "nothing"))
                g_hash_table_add(set, g_strdup(name));
        }
        g_strfreev(names);
        g_free(rule);
        if (every) {
            g_hash_table_unref(set);
            set = NULL;
        }
        g_hash_table_insert(h->allowed, g_strdup(room), set);
    }
    const char *names_line = strstr(text, "\nPrefixes:");
    if (!names_line) {
        g_ptr_array_add(h->problems, g_strdup_printf("%s has no 'Prefixes:' line", readme_path));
    } else {
        names_line += strlen("\nPrefixes:");
        char *rule = g_strndup(names_line, strcspn(names_line, "\n"));
        /* every `name_` on the line; prose around them ("none", "and each file's own") is for readers */
        GStrvBuilder *b = g_strv_builder_new();
        char **parts = g_strsplit(rule, "`", -1);
        for (guint k = 1; parts[k] && parts[k + 1]; k += 2) {
            if (!g_str_has_suffix(parts[k], "_") || strchr(parts[k], ' '))
                g_ptr_array_add(h->problems, g_strdup_printf("%s: '%s' on the 'Prefixes:' line is no `prefix_`",
                                                             readme_path, parts[k]));
            else
                g_strv_builder_add(b, parts[k]);
        }
        g_strfreev(parts);
        g_free(rule);
        g_hash_table_insert(h->prefixes, g_strdup(room), g_strv_builder_end(b));
        g_strv_builder_unref(b);
    }
    g_free(text);
    g_free(full);
}

static void graph_add_edge(GHashTable *graph, const char *from_unit, const char *to_unit)
{
    if (!strcmp(from_unit, to_unit))
        return;
    GHashTable *set = g_hash_table_lookup(graph, from_unit);
    if (!set) {
        set = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        g_hash_table_insert(graph, g_strdup(from_unit), set);
    }
    g_hash_table_add(set, g_strdup(to_unit));
}

static void house_add_edge(House *h, const char *from_unit, const char *to_unit)
{
    graph_add_edge(h->units, from_unit, to_unit);
}

/* Checks one include line of `path` (a file of `room`). */
static void house_check_include(House *h, const char *path, const char *room, const char *include)
{
    char *target = room_of_include(include);
    if (!strcmp(target, "tests") || !house_allows(h, room, target))
        g_ptr_array_add(h->problems, g_strdup_printf("%s (room %s) includes \"%s\" (room %s), which its README does not allow",
                                                     path, room, include, *target ? target : "none: name the room"));
    if (strcmp(include, "onnx.pb-c.h")) {
        char *resolved = include_path(include), *full = g_build_filename(source_dir(), resolved, NULL);
        if (!g_file_test(full, G_FILE_TEST_IS_REGULAR))
            g_ptr_array_add(h->problems, g_strdup_printf("%s includes \"%s\", which is no file", path, include));
        char *from = unit_of(path), *to = unit_of(resolved);
        house_add_edge(h, from, to);
        g_free(from);
        g_free(to);
        g_free(full);
        g_free(resolved);
    }
    g_free(target);
}

static void house_check_file(House *h, const char *path)
{
    char *full = g_build_filename(source_dir(), path, NULL), *text = NULL;
    g_assert_true(g_file_get_contents(full, &text, NULL, NULL));
    char *room = room_of_path(path), *base = g_path_get_basename(path);
    char *opening = g_strdup_printf("/* %s — ", base);
    if (!g_str_has_prefix(text, opening))
        g_ptr_array_add(h->problems, g_strdup_printf("%s does not open with \"/* %s — what it is for\"", path, base));
    char **lines = g_strsplit(text, "\n", -1);
    for (char **l = lines; *l; l++) {
        const char *p = *l;
        if (!g_str_has_prefix(p, "#include \""))
            continue;
        p += strlen("#include \"");
        char *include = g_strndup(p, strcspn(p, "\""));
        house_check_include(h, path, room, include);
        g_free(include);
    }
    g_strfreev(lines);
    g_free(opening);
    g_free(base);
    g_free(room);
    g_free(text);
    g_free(full);
}

/* Every .c and .h under `dir` (repository-relative), recursively, sorted. */
static void collect_sources(const char *dir, GPtrArray *out)
{
    char *full = g_build_filename(source_dir(), dir, NULL);
    GDir *d = g_dir_open(full, 0, NULL);
    g_assert_nonnull(d);
    const char *name;
    while ((name = g_dir_read_name(d))) {
        char *rel = g_build_filename(dir, name, NULL), *abs = g_build_filename(source_dir(), rel, NULL);
        if (g_file_test(abs, G_FILE_TEST_IS_DIR))
            collect_sources(rel, out);
        else if (g_str_has_suffix(name, ".c") || g_str_has_suffix(name, ".h"))
            g_ptr_array_add(out, g_strdup(rel));
        g_free(abs);
        g_free(rel);
    }
    g_dir_close(d);
    g_free(full);
}

/* Depth-first search for a circle in `graph` (includes or calls); adds the first one found from each start as a
 * problem, its line starting with `label`. */
static gboolean find_circle(House *h, GHashTable *graph, const char *label, const char *unit, GHashTable *state,
                            GPtrArray *stack)
{
    g_hash_table_insert(state, (gpointer)unit, GINT_TO_POINTER(1));
    g_ptr_array_add(stack, (gpointer)unit);
    GHashTable *next = g_hash_table_lookup(graph, unit);
    GList *targets = next ? g_list_sort(g_hash_table_get_keys(next), (GCompareFunc)strcmp) : NULL;
    gboolean found = FALSE;
    for (GList *t = targets; t && !found; t = t->next) {
        const char *v = t->data;
        gint s = GPOINTER_TO_INT(g_hash_table_lookup(state, v));
        if (s == 1) {
            GString *circle = g_string_new(label);
            guint k = stack->len;
            while (k > 0 && strcmp(stack->pdata[k - 1], v))
                k--;
            for (guint j = k - 1; j < stack->len; j++)
                g_string_append_printf(circle, " %s ->", (char *)stack->pdata[j]);
            g_string_append_printf(circle, " %s", v);
            g_ptr_array_add(h->problems, g_string_free(circle, FALSE));
            found = TRUE;
        } else if (s == 0) {
            found = find_circle(h, graph, label, v, state, stack);
        }
    }
    g_list_free(targets);
    g_ptr_array_remove_index(stack, stack->len - 1);
    g_hash_table_insert(state, (gpointer)unit, GINT_TO_POINTER(2));
    return found;
}

static void house_find_circles_in(House *h, GHashTable *graph, const char *label)
{
    GHashTable *state = g_hash_table_new(g_str_hash, g_str_equal);
    GPtrArray *stack = g_ptr_array_new();
    GList *units = g_list_sort(g_hash_table_get_keys(graph), (GCompareFunc)strcmp);
    for (GList *u = units; u; u = u->next)
        if (!g_hash_table_lookup(state, u->data))
            find_circle(h, graph, label, u->data, state, stack);
    g_list_free(units);
    g_ptr_array_unref(stack);
    g_hash_table_unref(state);
}

/* Circles of includes, and of calls (a file's object using another's functions or data, which includes alone
 * cannot show: two files may each declare what the other defines). */
static void house_find_circles(House *h)
{
    house_find_circles_in(h, h->units, "circle:");
    house_find_circles_in(h, h->calls, "call circle:");
}

static House *house_new(void)
{
    House *h = g_new0(House, 1);
    h->allowed = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_hash_table_unref);
    h->units = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_hash_table_unref);
    h->calls = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_hash_table_unref);
    h->prefixes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_strfreev);
    h->problems = g_ptr_array_new_with_free_func(g_free);
    return h;
}

static void house_free(House *h)
{
    /* a NULL set (every room) must not reach g_hash_table_unref */
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init(&it, h->allowed);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        if (!value) {
            g_hash_table_iter_steal(&it);
            g_free(key);
        }
    }
    g_hash_table_unref(h->allowed);
    g_hash_table_unref(h->units);
    g_hash_table_unref(h->calls);
    g_hash_table_unref(h->prefixes);
    g_ptr_array_unref(h->problems);
    g_free(h);
}

static void fail_on_problems(const House *h)
{
    if (!h->problems->len)
        return;
    GString *all = g_string_new(NULL);
    for (guint k = 0; k < h->problems->len; k++)
        g_string_append_printf(all, "\n  %s", (char *)h->problems->pdata[k]);
    g_error("the house's rules are broken:%s", all->str);
}

/* One use of a symbol: an object of room `room` (`object`, for the message) uses `symbol`, which the
 * library defines in room `defined_in`. A problem when the room's rule does not allow that room. */
static void house_check_use(House *h, const char *object, const char *room, const char *symbol, const char *defined_in)
{
    if (!house_allows(h, room, defined_in))
        g_ptr_array_add(h->problems, g_strdup_printf("%s (room %s) uses '%s', defined in room %s, which its rule does "
                                                     "not allow", object, room, symbol, defined_in));
}

/* One exported name: an object of room `room` (`object`: "sim/ops/ops-conv.o") defines `symbol`. It must
 * start with its file's prefix (the file's name with '-' as '_': ops_conv_...; or be that name, as `main`)
 * or with one of its room's prefixes, so that a name says where it lives. */
static void house_check_name(House *h, const char *object, const char *room, const char *symbol)
{
    if (g_str_has_prefix(symbol, "__")) /* the compiler's and the sanitizers' own (__odr_asan.x): C reserves them */
        return;
    char *base = g_path_get_basename(object), *dot = strrchr(base, '.');
    if (dot)
        *dot = '\0';
    g_strdelimit(base, "-", '_');
    size_t n = strlen(base);
    gboolean ok = !strncmp(symbol, base, n) && (symbol[n] == '\0' || symbol[n] == '_');
    char **prefixes = g_hash_table_lookup(h->prefixes, room);
    for (char **p = prefixes; !ok && p && *p; p++)
        ok = g_str_has_prefix(symbol, *p);
    if (!ok)
        g_ptr_array_add(h->problems, g_strdup_printf("%s (room %s) exports '%s', which starts with neither its file's "
                                                     "prefix '%s_' nor a prefix its room's README gives", object,
                                                     room, symbol, base));
    g_free(base);
}

/* No two rooms give out the same names: no prefix of one room's `Prefixes:` line starts another's. */
static void house_check_prefixes_apart(House *h)
{
    GHashTableIter a, b;
    gpointer room_a, list_a, room_b, list_b;
    g_hash_table_iter_init(&a, h->prefixes);
    while (g_hash_table_iter_next(&a, &room_a, &list_a)) {
        g_hash_table_iter_init(&b, h->prefixes);
        while (g_hash_table_iter_next(&b, &room_b, &list_b)) {
            if (!strcmp(room_a, room_b))
                continue;
            for (char **p = list_a; *p; p++)
                for (char **q = list_b; *q; q++)
                    if (g_str_has_prefix(*q, *p))
                        g_ptr_array_add(h->problems, g_strdup_printf("room %s's prefix '%s' starts room %s's '%s': a "
                                                                     "name would not say which room it is from",
                                                                     (char *)room_a, *p, (char *)room_b, *q));
        }
    }
}

/* The room of an object of the build ("sim/exec/kernels/conv.o" -> "exec"); the generated ONNX schema
 * (gen/onnx.pb-c) is the model room's, the generated table of ONNX's operator schemas (gen/onnx-schemas) the ops
 * room's (sim/ops/op-schema.h declares it). */
static char *room_of_object(const char *rel)
{
    if (!strcmp(rel, "gen/onnx-schemas.o"))
        return g_strdup("ops");
    return g_str_has_prefix(rel, "gen/") ? g_strdup("model") : room_of_path(rel);
}

static void collect_objects(const char *root, const char *rel, GPtrArray *out)
{
    char *abs = g_build_filename(root, rel, NULL);
    GDir *d = g_dir_open(abs, 0, NULL);
    const char *name;
    while (d && (name = g_dir_read_name(d))) {
        char *child = g_build_filename(rel, name, NULL), *child_abs = g_build_filename(root, child, NULL);
        if (g_file_test(child_abs, G_FILE_TEST_IS_DIR))
            collect_objects(root, child, out);
        else if (g_str_has_suffix(name, ".o"))
            g_ptr_array_add(out, g_steal_pointer(&child));
        g_free(child);
        g_free(child_abs);
    }
    if (d)
        g_dir_close(d);
    g_free(abs);
}

/* The linked symbols: every object of the library, its generators and the command (the build's obj/
 * folder) through `nm -P -A`; each symbol an object uses and another object defines must be defined in
 * a room its rule allows, as its includes must be. Includes alone cannot see a table that names a
 * function another room defines through a declaration of its own. */
static void house_check_symbols(House *h, const char *obj_root)
{
    GPtrArray *objects = g_ptr_array_new_with_free_func(g_free);
    collect_objects(obj_root, "sim", objects);
    collect_objects(obj_root, "strategies", objects);
    collect_objects(obj_root, "graphs", objects);
    collect_objects(obj_root, "gen", objects);
    g_assert_cmpuint(objects->len, >, 100);
    GPtrArray *argv = g_ptr_array_new();
    g_ptr_array_add(argv, "nm");
    g_ptr_array_add(argv, "-P");
    g_ptr_array_add(argv, "-A");
    for (guint k = 0; k < objects->len; k++)
        g_ptr_array_add(argv, objects->pdata[k]);
    g_ptr_array_add(argv, NULL);
    char *out = NULL, *err = NULL;
    int status = 0;
    GError *error = NULL;
    g_assert_true(g_spawn_sync(obj_root, (char **)argv->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status,
                               &error));
    g_assert_no_error(error);
    g_assert_true(g_spawn_check_wait_status(status, NULL));
    /* "sim/plan/place.o: place_run T 0 40" */
    GHashTable *defined = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free); /* symbol -> room */
    GHashTable *definer = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free); /* symbol -> unit */
    GPtrArray *uses = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);        /* {object, symbol} */
    char **lines = g_strsplit(out, "\n", -1);
    for (char **l = lines; *l; l++) {
        char *colon = strstr(*l, ": ");
        if (!colon)
            continue;
        char *object = g_strndup(*l, colon - *l);
        char **f = g_strsplit(colon + 2, " ", 3);
        if (f[0] && f[1]) {
            char type = f[1][0];
            if (type == 'U')
                g_ptr_array_add(uses, g_strdupv((char *[]){object, f[0], NULL}));
            else if (g_ascii_isupper(type) && !g_hash_table_contains(defined, f[0])) {
                char *room = room_of_object(object);
                if (!g_str_has_prefix(object, "gen/")) /* protobuf-c's own names */
                    house_check_name(h, object, room, f[0]);
                g_hash_table_insert(defined, g_strdup(f[0]), room);
                g_hash_table_insert(definer, g_strdup(f[0]), unit_of(object));
            }
        }
        g_strfreev(f);
        g_free(object);
    }
    guint checked = 0;
    for (guint k = 0; k < uses->len; k++) {
        char **u = uses->pdata[k];
        const char *in = g_hash_table_lookup(defined, u[1]);
        if (!in)
            continue; /* GLib, libc, protobuf-c, OpenBLAS */
        char *room = room_of_object(u[0]);
        house_check_use(h, u[0], room, u[1], in);
        char *unit = unit_of(u[0]);
        graph_add_edge(h->calls, unit, g_hash_table_lookup(definer, u[1]));
        g_free(unit);
        g_free(room);
        checked++;
    }
    g_assert_cmpuint(checked, >, 1000);
    g_strfreev(lines);
    g_ptr_array_unref(uses);
    g_hash_table_unref(defined);
    g_hash_table_unref(definer);
    g_free(out);
    g_free(err);
    g_ptr_array_unref(argv);
    g_ptr_array_unref(objects);
}

static void test_rooms_and_includes(void)
{
    House *h = house_new();
    char *sim = g_build_filename(source_dir(), "sim", NULL);
    GDir *d = g_dir_open(sim, 0, NULL);
    g_assert_nonnull(d);
    const char *name;
    guint rooms = 0;
    while ((name = g_dir_read_name(d))) {
        char *rel = g_build_filename("sim", name, NULL), *abs = g_build_filename(source_dir(), rel, NULL);
        if (g_file_test(abs, G_FILE_TEST_IS_DIR)) {
            char *readme = g_build_filename(rel, "README.md", NULL);
            house_read_rule(h, name, readme);
            g_free(readme);
            rooms++;
        } else if (g_str_has_suffix(name, ".c") || g_str_has_suffix(name, ".h")) {
            g_ptr_array_add(h->problems, g_strdup_printf("%s lies in no room (sim/ holds only room folders)", rel));
        }
        g_free(abs);
        g_free(rel);
    }
    g_dir_close(d);
    g_free(sim);
    g_assert_cmpuint(rooms, >=, 9);
    house_read_rule(h, "strategies", "strategies/README.md");
    house_read_rule(h, "graphs", "graphs/README.md");
    GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
    collect_sources("sim", files);
    collect_sources("strategies", files);
    collect_sources("graphs", files);
    g_assert_cmpuint(files->len, >, 100);
    for (guint k = 0; k < files->len; k++)
        house_check_file(h, files->pdata[k]);
    /* the linked symbols of the build the tests run (SIM_BIN's folder) */
    const char *sim_bin = g_getenv("SIM_BIN");
    g_assert_nonnull(sim_bin);
    char *build = g_path_get_dirname(sim_bin), *obj = g_build_filename(build, "obj", NULL);
    house_check_symbols(h, obj);
    house_find_circles(h);
    house_check_prefixes_apart(h);
    for (guint k = 0; k < files->len; k++) { /* every source's object was read: none missed by a stale build */
        const char *path = files->pdata[k];
        if (!g_str_has_suffix(path, ".c"))
            continue;
        char *unit = unit_of(path), *o = g_strconcat(obj, "/", unit, ".o", NULL);
        if (!g_file_test(o, G_FILE_TEST_EXISTS))
            g_ptr_array_add(h->problems, g_strdup_printf("%s has no object in %s: its symbols went unchecked", path, obj));
        g_free(o);
        g_free(unit);
    }
    g_free(obj);
    g_free(build);
    fail_on_problems(h);
    g_ptr_array_unref(files);
    house_free(h);
}

/* The checker finds what it is for: an include running up, an include of an unnamed room, an upward
 * symbol, a stray exported name, a prefix two rooms give out, a circle. */
static void test_checker_catches(void)
{
    House *h = house_new();
    GHashTable *plan = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_hash_table_add(plan, g_strdup("trace"));
    g_hash_table_insert(h->allowed, g_strdup("plan"), plan);
    g_hash_table_insert(h->allowed, g_strdup("cli"), NULL);
    g_assert_true(house_allows(h, "plan", "trace"));
    g_assert_true(house_allows(h, "plan", "plan"));
    g_assert_false(house_allows(h, "plan", "memory"));
    g_assert_false(house_allows(h, "model", "base")); /* a room without a rule may include nothing */
    g_assert_true(house_allows(h, "cli", "report"));
    house_check_include(h, "sim/plan/x.c", "plan", "memory/alias.h");
    g_assert_cmpuint(h->problems->len, ==, 1);
    g_assert_nonnull(strstr(h->problems->pdata[0], "does not allow"));
    house_check_include(h, "sim/plan/x.c", "plan", "trace/no-such-file.h");
    g_assert_cmpuint(h->problems->len, ==, 2);
    g_assert_nonnull(strstr(h->problems->pdata[1], "which is no file"));
    house_check_include(h, "sim/plan/x.c", "plan", "bare.h");
    /* a planted upward symbol: the plan room using a function the memory room defines */
    guint symbols_before = h->problems->len;
    house_check_use(h, "sim/plan/x.o", "plan", "trace_count", "trace");
    g_assert_cmpuint(h->problems->len, ==, symbols_before);
    house_check_use(h, "sim/plan/x.o", "plan", "alias_map_new", "memory");
    g_assert_cmpuint(h->problems->len, ==, symbols_before + 1);
    g_assert_nonnull(strstr(h->problems->pdata[symbols_before], "uses 'alias_map_new', defined in room memory"));
    g_ptr_array_remove_index(h->problems, symbols_before);
    /* names: the file's prefix or the room's; a planted stray name; two rooms giving out one prefix */
    g_hash_table_insert(h->prefixes, g_strdup("plan"), g_strdupv((char *[]){"plan_", NULL}));
    house_check_name(h, "sim/plan/gap-use.o", "plan", "gap_use_init");
    house_check_name(h, "sim/plan/x.o", "plan", "plan_free");
    house_check_name(h, "sim/cli/main.o", "plan", "main");
    house_check_name(h, "sim/plan/x.o", "plan", "__odr_asan.plan_free");
    g_assert_cmpuint(h->problems->len, ==, symbols_before);
    house_check_name(h, "sim/plan/gap-use.o", "plan", "gap_user"); /* not gap_use_ */
    house_check_name(h, "sim/plan/x.o", "plan", "mix64");
    g_assert_cmpuint(h->problems->len, ==, symbols_before + 2);
    g_assert_nonnull(strstr(h->problems->pdata[symbols_before + 1], "exports 'mix64', which starts with neither"));
    house_check_prefixes_apart(h);
    g_assert_cmpuint(h->problems->len, ==, symbols_before + 2);
    g_hash_table_insert(h->prefixes, g_strdup("trace"), g_strdupv((char *[]){"trace_", "plan_free_", NULL}));
    house_check_prefixes_apart(h);
    g_assert_cmpuint(h->problems->len, ==, symbols_before + 3);
    g_assert_nonnull(strstr(h->problems->pdata[symbols_before + 2], "room plan's prefix 'plan_' starts room trace's"));
    g_ptr_array_set_size(h->problems, symbols_before);
    g_assert_cmpuint(h->problems->len, >=, 3);
    guint before = h->problems->len;
    house_add_edge(h, "sim/memory/alias", "sim/memory/liveness");
    house_add_edge(h, "sim/memory/liveness", "sim/memory/order");
    house_add_edge(h, "sim/memory/order", "sim/memory/alias");
    house_find_circles(h);
    g_assert_cmpuint(h->problems->len, ==, before + 1);
    g_assert_nonnull(strstr(h->problems->pdata[before], "sim/memory/alias -> sim/memory/liveness"));
    /* a planted call circle (as ops/infer.c and ops/ranges.c were: each used a function of the other) */
    graph_add_edge(h->calls, "sim/ops/infer", "sim/ops/ranges");
    graph_add_edge(h->calls, "sim/ops/ranges", "sim/ops/infer");
    house_find_circles_in(h, h->calls, "call circle:");
    g_assert_cmpuint(h->problems->len, ==, before + 2);
    g_assert_nonnull(strstr(h->problems->pdata[before + 1], "call circle: sim/ops/infer -> sim/ops/ranges"));
    char *room = room_of_path("sim/exec/kernels/gemm.c");
    g_assert_cmpstr(room, ==, "exec");
    g_free(room);
    house_free(h);
}

/* The hand-copied lists of the rooms: in `doc` (for the message), each room of `rooms` (a set of names) must be
 * named by `pattern`'s first group somewhere in `text`, and `pattern` must name no room that is not there. */
static void house_check_room_list(House *h, const char *doc, const char *text, const char *pattern, GHashTable *rooms)
{
    GRegex *re = g_regex_new(pattern, G_REGEX_MULTILINE, 0, NULL);
    g_assert_nonnull(re);
    GHashTable *named = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GMatchInfo *m = NULL;
    for (g_regex_match(re, text, 0, &m); g_match_info_matches(m); g_match_info_next(m, NULL))
        g_hash_table_add(named, g_match_info_fetch(m, 1));
    g_match_info_free(m);
    GList *keys = g_list_sort(g_hash_table_get_keys(named), (GCompareFunc)strcmp);
    for (GList *k = keys; k; k = k->next)
        if (!g_hash_table_contains(rooms, k->data))
            g_ptr_array_add(h->problems, g_strdup_printf("%s names a room '%s' the house does not have (/%s/)", doc,
                                                         (char *)k->data, pattern));
    g_list_free(keys);
    keys = g_list_sort(g_hash_table_get_keys(rooms), (GCompareFunc)strcmp);
    for (GList *k = keys; k; k = k->next)
        if (!g_hash_table_contains(named, k->data))
            g_ptr_array_add(h->problems, g_strdup_printf("%s does not list the room '%s' (/%s/)", doc,
                                                         (char *)k->data, pattern));
    g_list_free(keys);
    g_hash_table_unref(named);
    g_regex_unref(re);
}

/* The text of a repository file's first ``` block after the line starting `after` ("" for the first). */
static char *doc_block(const char *text, const char *after)
{
    const char *from = *after ? strstr(text, after) : text;
    const char *open = from ? strstr(from, "```") : NULL;
    const char *close = open ? strstr(open + 3, "```") : NULL;
    return close ? g_strndup(open, close - open) : g_strdup("");
}

/* Every copy of the room list a reader meets: sim/README.md's map and table, DESIGN.md's map and table, and
 * docs/usage.md's "Where things are" say the rooms sim/ holds, no more, no fewer. */
static void test_room_lists(void)
{
    House *h = house_new();
    GHashTable *rooms = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    char *sim = g_build_filename(source_dir(), "sim", NULL);
    GDir *d = g_dir_open(sim, 0, NULL);
    g_assert_nonnull(d);
    const char *name;
    while ((name = g_dir_read_name(d))) {
        char *abs = g_build_filename(sim, name, NULL);
        if (g_file_test(abs, G_FILE_TEST_IS_DIR))
            g_hash_table_add(rooms, g_strdup(name));
        g_free(abs);
    }
    g_dir_close(d);
    g_free(sim);
    g_assert_cmpuint(g_hash_table_size(rooms), >=, 10);
    /* a table or list names exactly the rooms; a map (a ``` block after a heading) names each of them among
     * its other words */
    static const struct {
        const char *doc, *block_after, *row, *pattern;
    } lists[] = {
        {"sim/README.md", NULL, NULL, "^\\| \\[([a-z]+)\\]\\(\\1/README\\.md\\)"},
        {"sim/README.md", "", NULL, "\\b([a-z]+)\\b"},
        {"docs/DESIGN.md", NULL, NULL, "^\\| `sim/([a-z]+)/` \\|"},
        {"docs/DESIGN.md", "## The house", NULL, "\\b([a-z]+)/"},
        {"docs/usage.md", NULL, "| `sim/` |", "`([a-z]+)/` \\("},
    };
    for (gsize k = 0; k < G_N_ELEMENTS(lists); k++) {
        char *path = g_build_filename(source_dir(), lists[k].doc, NULL), *text = NULL;
        g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
        char *part = NULL;
        if (lists[k].block_after) {
            part = doc_block(text, lists[k].block_after);
        } else if (lists[k].row) {
            const char *row = strstr(text, lists[k].row);
            part = row ? g_strndup(row, strcspn(row, "\n")) : g_strdup("");
        } else {
            part = g_strdup(text);
        }
        House *found = house_new();
        house_check_room_list(found, lists[k].doc, part, lists[k].pattern, rooms);
        for (guint j = 0; j < found->problems->len; j++)
            if (!lists[k].block_after || strstr(found->problems->pdata[j], "does not list"))
                g_ptr_array_add(h->problems, g_strdup(found->problems->pdata[j]));
        house_free(found);
        g_free(part);
        g_free(text);
        g_free(path);
    }
    fail_on_problems(h);
    /* the check catches a room left out and a room that is gone */
    house_check_room_list(h, "planted", "| `sim/base/` |\n| `sim/gone/` |", "^\\| `sim/([a-z]+)/` \\|", rooms);
    g_assert_cmpuint(h->problems->len, ==, g_hash_table_size(rooms));
    g_assert_nonnull(strstr(h->problems->pdata[0], "names a room 'gone'"));
    g_hash_table_unref(rooms);
    house_free(h);
}

/* The specification documents are not in the repository: nothing may send a reader to them by their file
 * names, and every `docs/spec.md §N` or `§N.M` a file cites must be a section of docs/spec.md. */
static void check_citations(const char *rel, const char *body, const char *spec, GRegex *hash, GRegex *cite,
                            GPtrArray *problems)
{
    if (g_regex_match(hash, body, 0, NULL))
        g_ptr_array_add(problems, g_strdup_printf("%s names a specification document by its file name", rel));
    GMatchInfo *m = NULL;
    g_regex_match(cite, body, 0, &m);
    for (; g_match_info_matches(m); g_match_info_next(m, NULL)) {
        char *section = g_match_info_fetch(m, 1);
        /* a section is a "## N." heading or a "**N.M" paragraph of docs/spec.md */
        char *heading = strchr(section, '.') ? g_strdup_printf("**%s ", section) : g_strdup_printf("## %s. ", section);
        if (!strstr(spec, heading))
            g_ptr_array_add(problems, g_strdup_printf("%s cites docs/spec.md §%s, which it does not have", rel, section));
        g_free(heading);
        g_free(section);
    }
    g_match_info_free(m);
}

static void scan_citations(const char *root, const char *rel, const char *spec, GRegex *hash, GRegex *cite,
                           GPtrArray *problems)
{
    char *path = g_build_filename(root, rel, NULL);
    if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
        GDir *dir = g_dir_open(path, 0, NULL);
        for (const char *name; dir && (name = g_dir_read_name(dir));) {
            if (name[0] == '.' || !strcmp(name, "models") || g_str_has_prefix(name, "build"))
                continue; /* hidden, the fetched model corpus, build folders */
            char *child = *rel ? g_build_filename(rel, name, NULL) : g_strdup(name);
            scan_citations(root, child, spec, hash, cite, problems);
            g_free(child);
        }
        if (dir)
            g_dir_close(dir);
        g_free(path);
        return;
    }
    static const char *const text[] = {".c", ".h", ".md", ".sh", ".py", ".tsv", "Makefile", ".csv", "run"};
    gboolean is_text = FALSE;
    for (guint k = 0; k < G_N_ELEMENTS(text) && !is_text; k++)
        is_text = g_str_has_suffix(rel, text[k]);
    gchar *body = NULL;
    if (is_text && g_file_get_contents(path, &body, NULL, NULL))
        check_citations(rel, body, spec, hash, cite, problems);
    g_free(body);
    g_free(path);
}

static void test_spec_citations(void)
{
    const char *root = g_getenv("SIM_SOURCE_DIR");
    char *spec_path = g_build_filename(root, "docs", "spec.md", NULL), *spec = NULL;
    g_assert_true(g_file_get_contents(spec_path, &spec, NULL, NULL));
    /* the names are built here so that this file does not match itself */
    char *pattern = g_strconcat("00[0-3]", "_[0-9a-f]{16}", NULL);
    GRegex *hash = g_regex_new(pattern, 0, 0, NULL), *cite = g_regex_new("spec\\.md §([0-9]+(\\.[0-9]+)?)", 0, 0, NULL);
    GPtrArray *problems = g_ptr_array_new_with_free_func(g_free);
    scan_citations(root, "", spec, hash, cite, problems);
    for (guint k = 0; k < problems->len; k++)
        g_printerr("%s\n", (const char *)problems->pdata[k]);
    g_assert_cmpuint(problems->len, ==, 0);
    /* and the check can fail: a planted citation of a missing section, and a planted file name, are caught */
    char *planted = g_strconcat("see docs/spec.", "md §9.9 and ", "003", "_0123456789abcdef.txt", NULL);
    check_citations("planted", planted, spec, hash, cite, problems);
    g_assert_cmpuint(problems->len, ==, 2);
    g_free(planted);
    g_ptr_array_unref(problems);
    g_regex_unref(hash);
    g_regex_unref(cite);
    g_free(pattern);
    g_free(spec);
    g_free(spec_path);
}

/* Every kernel row is bound to an op row by its name and domain (a row naming no op, "SoftSign" for "Softsign",
 * would never run and built silently), and every row of a kernel that serves a family says which member it is. */
static void test_kernel_rows_bound(void)
{
    g_assert_null(kernel_table_unbound());
    gsize count;
    const KernelRow *rows = kernel_table(&count);
    for (gsize k = 0; k < count; k++)
        if (rows[k].kernel == kernel_reduce || rows[k].kernel == kernel_pool || rows[k].kernel == kernel_global_pool ||
            rows[k].kernel == kernel_arg_reduce || rows[k].kernel == kernel_softmax)
            if (rows[k].kind == KIND_NONE)
                g_error("kernel row %s serves a family but names no kind", rows[k].name);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/house/spec-citations", test_spec_citations);
    g_test_add_func("/house/checker-catches", test_checker_catches);
    g_test_add_func("/house/rooms-and-includes", test_rooms_and_includes);
    g_test_add_func("/house/kernel-rows-bound", test_kernel_rows_bound);
    g_test_add_func("/house/room-lists", test_room_lists);
    return g_test_run();
}
