/* talkhooks: the protocol's hooks into a game (see talkhooks.h). */
#include "talkhooks.h"

#include "protocol.h"

static int validate(void *ud, const char *text, size_t len, aw_validation mode, void **parsed, aw_error *err)
{
    (void)ud;
    aw_sentence *s = aw_protocol_parse(text, len, mode, err);
    if (!s)
        return -AW_EINVAL;
    *parsed = s;
    return 0;
}

static void free_parsed(void *ud, void *parsed)
{
    (void)ud;
    aw_sentence_free(parsed);
}

aw_talk_hooks aw_talkhooks(void)
{
    aw_talk_hooks h = {validate, free_parsed};
    return h;
}

void aw_talkhooks_game(aw_game_opts *go)
{
    go->talk = aw_talkhooks();
    go->validate_ud = NULL;
}

static void describe(void *ud, const aw_talk *t, aw_buf *out)
{
    aw_protocol_describe(t->parsed, t->agent, ud, out);
}

void aw_talkhooks_describe(aw_gamelog *log, const char *lang)
{
    log->describe = describe;
    log->describe_ud = (void *)lang;
}
