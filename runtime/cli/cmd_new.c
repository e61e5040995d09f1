/* cmd_new: `aiwolf new NAME` creates a folder with an agent to start from
 * (templates/agent/), the LuaLS annotation library (meta/), a luacheck
 * configuration made from the sandbox's own globals (lualint) and a busted
 * spec. The templates are compiled into the binary, so the folder works
 * without this repository. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "options.h"
#include "lualint.h"
#include "luamods.h"

#ifndef AIWOLF_VERSION
#define AIWOLF_VERSION "dev"
#endif

extern const aw_luamod aw_agent_templates[];
extern const aw_luamod aw_meta_files[];

#define META_DIR ".aiwolf-meta"

/* --help: the head, the options (the table in cmd_new), the foot. */
static const char new_head[] =
    "usage: aiwolf new [--role-aware | --nlp] [--dir PARENT] NAME\n"
    "\n"
    "Creates the folder NAME (in PARENT, default the current folder) with a new\n"
    "agent to start from:\n"
    "  main.lua                a commented agent that plays sensibly, built on\n"
    "                          require \"aiwolf.agent\" (docs/agents.md)\n"
    "  spec/NAME_spec.lua      a busted spec: lints the agent and plays games of it\n"
    "                          with the aiwolf binary (AIWOLF_BIN, else aiwolf on\n"
    "                          the PATH), checking that no call faults\n"
    "  .luarc.json             lua-language-server settings: Lua 5.4, no io/debug,\n"
    "                          and the annotations below as a library\n"
    "  " META_DIR "/aiwolf/    annotations (---@meta) of the agent's methods, info,\n"
    "                          setting, aiwolf.agent and aiwolf.protocol\n"
    "  .luacheckrc             luacheck settings: exactly the sandbox's globals\n"
    "\n"
    "NAME is a plain folder name: letters, digits, '_', '-' and '.', not starting\n"
    "with '.' or '-', at most 64 characters. An existing NAME is never touched.\n"
    "\n"
    "options:\n";
static const char new_foot[] =
    "\n"
    "Then: aiwolf play NAME/main.lua NAME/main.lua; aiwolf lint NAME/main.lua;\n"
    "(cd NAME && busted). See README.md, \"Write your own agent\".\n"
    "\n"
    "exit status: 0 created, 1 NAME exists or a file could not be written,\n"
    "             2 bad usage or a bad NAME\n";


static const char *bad_name(const char *name)
{
    size_t n = strlen(name);
    if (n == 0)
        return "it is empty";
    if (n > 64)
        return "it is longer than 64 characters";
    if (name[0] == '.' || name[0] == '-')
        return "it starts with '.' or '-'";
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (c == '/')
            return "it has a '/' (use --dir PARENT for the folder to create it in)";
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
              c == '.'))
            return "only letters, digits, '_', '-' and '.' are allowed";
    }
    return NULL;
}

static const aw_luamod *template_named(const char *name)
{
    for (const aw_luamod *m = aw_agent_templates; m->name; m++)
        if (strcmp(m->name, name) == 0)
            return m;
    return NULL;
}

/* text with {{NAME}} and {{CLASS}} replaced */
static void expand(aw_buf *out, const char *text, size_t len, const char *name, const char *cls)
{
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *q = strstr(p, "{{");
        if (!q || q >= end) {
            aw_buf_add(out, p, (size_t)(end - p));
            break;
        }
        aw_buf_add(out, p, (size_t)(q - p));
        if (strncmp(q, "{{NAME}}", 8) == 0) {
            aw_buf_adds(out, name);
            p = q + 8;
        } else if (strncmp(q, "{{CLASS}}", 9) == 0) {
            aw_buf_adds(out, cls);
            p = q + 9;
        } else {
            aw_buf_add(out, q, 2);
            p = q + 2;
        }
    }
}

/* Writes a new file (never replacing one); 0 or -1 with a message. */
/* DIR/REL into path; 0, or -1 with a message when it does not fit. */
static int join_path(char *path, size_t n, const char *dir, const char *rel)
{
    int k = snprintf(path, n, "%s/%s", dir, rel);
    if (k < 0 || (size_t)k >= n) {
        aw_cli_line(stderr, "aiwolf new: the path %s/%s is too long", dir, rel);
        return -1;
    }
    return 0;
}

static int write_new(const char *dir, const char *rel, const char *data, size_t len)
{
    char path[4200];
    if (join_path(path, sizeof path, dir, rel) < 0)
        return -1;
    FILE *f = fopen(path, "wx");
    if (!f) {
        aw_cli_line(stderr, "aiwolf new: cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    size_t w = fwrite(data, 1, len, f);
    if (fclose(f) != 0 || w != len) {
        aw_cli_line(stderr, "aiwolf new: cannot write %s", path);
        return -1;
    }
    return 0;
}

static int make_dir(const char *dir, const char *rel)
{
    char path[4200];
    if (join_path(path, sizeof path, dir, rel) < 0)
        return -1;
    if (mkdir(path, 0777) != 0) {
        aw_cli_line(stderr, "aiwolf new: cannot create the folder %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

static const char luarc[] =
    "{\n"
    "  \"$schema\": \"https://raw.githubusercontent.com/LuaLS/vscode-lua/master/setting/schema.json\",\n"
    "  \"runtime.version\": \"Lua 5.4\",\n"
    "  \"runtime.builtin\": {\"io\": \"disable\", \"debug\": \"disable\"},\n"
    "  \"workspace.library\": [\"" META_DIR "\"],\n"
    "  \"workspace.checkThirdParty\": false,\n"
    "  \"diagnostics.globals\": []\n"
    "}\n";

static int write_luacheckrc(const char *dir)
{
    aw_buf b;
    aw_buf_init(&b);
    aw_buf_adds(&b, "-- luacheck settings for this agent, made by `aiwolf new` (aiwolf-lua " AIWOLF_VERSION ").\n"
                    "-- The standard below lists exactly the globals of the agents' sandbox and\n"
                    "-- the fields of its libraries (docs/sandbox.md): no io, debug, dofile,\n"
                    "-- loadfile; os has clock, time, date and difftime only; no string.dump.\n"
                    "-- So `luacheck .` flags globals you set, names you misspell and library\n"
                    "-- functions a game does not have. (`aiwolf lint main.lua` checks much of\n"
                    "-- this without luacheck; luacheck adds unused and shadowed variables.)\n");
    aw_error err;
    if (aw_lualint_luacheck_std(&b, &err) < 0) {
        aw_cli_line(stderr, "aiwolf new: %s", err.msg);
        aw_buf_free(&b);
        return -1;
    }
    aw_buf_adds(&b, "std = \"aiwolf_sandbox\"\n"
                    "max_line_length = 120\n"
                    "exclude_files = {\"" META_DIR "/**\"}\n"
                    "-- the specs run under plain Lua 5.4 with busted, outside the sandbox\n"
                    "files[\"spec/**/*.lua\"] = {std = \"lua54+busted\"}\n");
    int rc = write_new(dir, ".luacheckrc", b.data, b.len);
    aw_buf_free(&b);
    return rc;
}

/* Shell quoting for the hints: 'text', with ' as '\''; $'...' for text a
 * terminal must not get raw. */
static void put_quoted(FILE *out, const char *s)
{
    int plain = *s != 0;
    for (const char *c = s; *c; c++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+=:,@", *c))
            plain = 0;
    if (plain) {
        fputs(s, out);
        return;
    }
    if (strcmp(aw_term(s).s, s) != 0) {
        /* what a terminal must not get raw (a control byte, U+202E, bytes
         * not UTF-8): bash's $'...' with every byte outside printable
         * ASCII as \xNN, safe to show and still a command to paste */
        fputs("$'", out);
        for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
            if (*c == '\'' || *c == '\\')
                fprintf(out, "\\%c", *c);
            else if (*c < 0x20 || *c >= 0x7f)
                fprintf(out, "\\x%02x", *c);
            else
                fputc(*c, out);
        }
        fputc('\'', out);
        return;
    }
    fputc('\'', out);
    for (const char *c = s; *c; c++) {
        if (*c == '\'')
            fputs("'\\''", out);
        else
            fputc(*c, out);
    }
    fputc('\'', out);
}

/* The commands that work from here with this binary: plain `aiwolf` when it
 * is the first on the PATH, else its absolute path (and AIWOLF_BIN for the
 * spec); the sample agent from the shared files when they are found. */
static void print_next(const char *dir, const char *name)
{
    const char *self = aw_cli_self_path();
    int on_path = aw_cli_self_on_path() || !self;
    const char *bin = on_path ? "aiwolf" : self;
    const char *data = aw_cli_data_dir();
    char other[4200];
    if (data)
        snprintf(other, sizeof other, "%s/agents/sample.lua", data);
    else
        snprintf(other, sizeof other, "OTHER.lua");
    char main_lua[4200];
    snprintf(main_lua, sizeof main_lua, "%s/main.lua", dir);
    aw_cli_line(stdout, "created %s/ with main.lua, spec/%s_spec.lua, .luarc.json, .luacheckrc, " META_DIR "/", dir,
                name);
    printf("next:\n  ");
    put_quoted(stdout, bin);
    printf(" play ");
    put_quoted(stdout, main_lua);
    printf(" ");
    put_quoted(stdout, main_lua);
    printf("   # one game, printed\n  ");
    put_quoted(stdout, bin);
    printf(" lint ");
    put_quoted(stdout, main_lua);
    printf("   # checks before a game\n  ");
    put_quoted(stdout, bin);
    printf(" play --games 200 --watch ");
    put_quoted(stdout, main_lua);
    printf(" ");
    put_quoted(stdout, other);
    printf("   # edit while it plays\n  cd ");
    put_quoted(stdout, dir);
    printf(" && ");
    if (!on_path) {
        printf("AIWOLF_BIN=");
        put_quoted(stdout, bin);
        printf(" ");
    }
    printf("busted   # the spec (needs lua-busted)\n");
    if (!on_path)
        aw_cli_line(stdout,
                    "(%s is not the aiwolf on your PATH; installed, docs/install.md, it is plain 'aiwolf')", bin);
}

int cmd_new(int argc, char **argv)
{
    const char *name = NULL, *parent = ".";
    bool roles = false, nlp = false;
    const char *names[1];
    aw_opt_list name_list = {names, 0, 1, "give one NAME"};
    const aw_opt opts[] = {
        {.name = "--role-aware", .kind = AW_OPT_FLAG, .to = &roles,
         .help = "main.lua has a part for each role (seer, medium, bodyguard,\n"
                 "werewolf, possessed, villager) instead of one for all"},
        {.name = "--nlp", .kind = AW_OPT_FLAG, .to = &nlp,
         .help = "main.lua is an agent for the NLP division (aiwolf connect\n"
                 "--nlp): it talks English or Japanese with the templates of\n"
                 "aiwolf.nlp and reads the others' text (docs/nlp.md)"},
        {.name = "--dir", .arg = "PARENT", .kind = AW_OPT_STR, .to = &parent,
         .help = "create NAME inside PARENT (which must exist)"},
        {.name = "--help", .alias = "-h", .kind = AW_OPT_HELP, .help = "show this help"},
        {0},
    };
    const aw_opts_cmd cmd = {"new", new_head, opts, new_foot, &name_list, 18};
    int prc = aw_opts_parse(&cmd, argc, argv, 1);
    if (prc != AW_OPTS_OK)
        return prc == AW_OPTS_EXIT ? 0 : 2;
    if (name_list.n)
        name = names[0];
    if (roles && nlp) {
        fprintf(stderr, "aiwolf new: --role-aware and --nlp are two different agents: choose one (aiwolf new --help)\n");
        return 2;
    }
    if (!name) {
        fprintf(stderr, "aiwolf new: no NAME given: aiwolf new NAME creates the folder NAME (aiwolf new --help)\n");
        return 2;
    }
    const char *why = bad_name(name);
    if (why) {
        aw_cli_line(stderr, "aiwolf new: '%s' is not a plain folder name: %s", name, why);
        return 2;
    }
    struct stat st;
    int there = stat(parent, &st) == 0;
    if (!there || !S_ISDIR(st.st_mode)) {
        aw_cli_line(stderr, "aiwolf new: --dir %s: %s", parent, there ? "a file, not a folder" : "no such folder");
        return 2;
    }
    char dir[4096];
    if (strcmp(parent, ".") == 0)
        snprintf(dir, sizeof dir, "%s", name);
    else
        snprintf(dir, sizeof dir, "%s%s%s", parent, parent[strlen(parent) - 1] == '/' ? "" : "/", name);
    if (lstat(dir, &st) == 0) {
        aw_cli_line(stderr, "aiwolf new: %s already exists: choose another NAME (nothing was changed)", dir);
        return 1;
    }
    if (mkdir(dir, 0777) != 0) {
        aw_cli_line(stderr, "aiwolf new: cannot create the folder %s: %s", dir, strerror(errno));
        return 1;
    }

    /* a Lua identifier for the annotations' class name */
    char cls[80];
    size_t k = 0;
    if (name[0] >= '0' && name[0] <= '9')
        k = (size_t)snprintf(cls, sizeof cls, "Agent_");
    for (const char *p = name; *p && k + 1 < sizeof cls; p++)
        cls[k++] = (*p == '-' || *p == '.') ? '_' : *p;
    cls[k] = 0;

    int rc = 0;
    const aw_luamod *main_t = template_named(nlp ? "main_nlp" : roles ? "main_roles" : "main");
    const aw_luamod *spec_t = template_named("spec");
    if (!main_t || !spec_t) {
        fprintf(stderr, "aiwolf new: this binary was built without its templates\n");
        return 1;
    }
    aw_buf b;
    aw_buf_init(&b);
    expand(&b, main_t->source, main_t->len, name, cls);
    rc |= write_new(dir, "main.lua", b.data, b.len);
    if (rc == 0)
        rc |= make_dir(dir, "spec");
    if (rc == 0) {
        char rel[128];
        snprintf(rel, sizeof rel, "spec/%s_spec.lua", name);
        aw_buf_clear(&b);
        expand(&b, spec_t->source, spec_t->len, name, cls);
        rc |= write_new(dir, rel, b.data, b.len);
    }
    aw_buf_free(&b);
    if (rc == 0)
        rc |= write_new(dir, ".luarc.json", luarc, sizeof luarc - 1);
    if (rc == 0)
        rc |= write_luacheckrc(dir);
    if (rc == 0)
        rc |= make_dir(dir, META_DIR);
    /* the annotation library, folders first (aiwolf/agent.lua needs aiwolf/) */
    for (const aw_luamod *m = aw_meta_files; rc == 0 && m->name; m++) {
        char rel[300];
        snprintf(rel, sizeof rel, META_DIR "/%s", m->path);
        for (char *s = strchr(rel + sizeof META_DIR, '/'); s; s = strchr(s + 1, '/')) {
            *s = 0;
            char full[4400];
            snprintf(full, sizeof full, "%s/%s", dir, rel);
            if (stat(full, &st) != 0)
                rc |= make_dir(dir, rel);
            *s = '/';
        }
        if (rc == 0)
            rc |= write_new(dir, rel, m->source, m->len);
    }
    if (rc != 0) {
        aw_cli_line(stderr, "aiwolf new: %s is incomplete: remove it and try again", dir);
        return 1;
    }
    print_next(dir, name);
    return 0;
}
