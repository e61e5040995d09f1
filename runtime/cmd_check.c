/* cmd_check: placeholder until the command lands in this session's work. */
#include <stdio.h>

#include "cli.h"

int cmd_check(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "aiwolf check: not built yet\n");
    return 2;
}
