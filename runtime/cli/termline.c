/* termline: one line of a command's output made safe for a terminal
 * (cli.h). */
#include <stdarg.h>

#include "cli.h"
#include "util.h"

void aw_cli_line(FILE *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    aw_term_vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
}
