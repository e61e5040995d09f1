/* cmd_protocol: placeholder until the command lands in this session's work. */
#include <stdio.h>

#include "cli.h"

int cmd_protocol(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "aiwolf protocol: not built yet\n");
    return 2;
}
