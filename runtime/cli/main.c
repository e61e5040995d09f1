/* main: the aiwolf command-line front end. It only dispatches to the
 * subcommands declared in cli.h. */
#include <stdio.h>
#include <string.h>

#include "aiwolf_version.h" /* generated at build time: cmake/version.cmake */
#include "cli.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"play", cmd_play, "play games of Lua agents and print or log them"},
    {"check", cmd_check, "check that game logs follow the rules of a preset"},
    {"protocol", cmd_protocol, "validate and normalise AIWolf protocol utterances"},
    {"replay", cmd_replay, "replay game logs through our engine and compare them byte for byte"},
    {"connect", cmd_connect, "play a Lua agent on an AIWolf server (TCP, or the NLP division with --nlp)"},
    {"serve", cmd_serve, "host AIWolf games for agents in any language (TCP, or WebSocket with --nlp)"},
    {"contest", cmd_contest, "play a contest between sandboxed entries, with a report"},
    {"new", cmd_new, "create a folder with a new agent to start from, editor and test set-up"},
    {"lint", cmd_lint, "check agent files for what would fail in a game, before a game does"},
    {"view", cmd_view, "show game logs, events files and contests in a browser"},
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: aiwolf COMMAND [OPTIONS]\n"
            "\n"
            "aiwolf-lua %s runs AIWolf (Werewolf) games between sandboxed Lua agents.\n"
            "\n"
            "commands:\n",
            AIWOLF_VERSION);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'aiwolf COMMAND --help' explains a command's options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        const char *data = aw_cli_data_dir();
        printf("aiwolf-lua %s\n", AIWOLF_VERSION);
        printf("data: %s\n", data ? data : "(not found: PREFIX/share/aiwolf beside PREFIX/bin/aiwolf)");
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    aw_cli_line(stderr, "aiwolf: unknown command '%s' (aiwolf --help lists the commands)", argv[1]);
    return 2;
}
