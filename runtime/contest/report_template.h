/* report_template: report.html as a C string, generated at build time by
 * cmake/embed_text.cmake (report_template.c in the build tree). Private to
 * runtime/contest. */
#ifndef AW_REPORT_TEMPLATE_H
#define AW_REPORT_TEMPLATE_H

#include <stddef.h>

extern const char *const aw_report_template;  /* NUL-terminated */
extern const size_t aw_report_template_len;   /* without the NUL */

#endif
