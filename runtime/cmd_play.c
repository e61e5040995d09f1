/* cmd_play: placeholder until the command lands in this session's work. */
#include <stdio.h>

#include "cli.h"

int cmd_play(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "aiwolf play: not built yet\n");
    return 2;
}
