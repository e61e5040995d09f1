/* nlprules: character names and the length rule of the NLP division (see
 * nlprules.h). Uses settings and util. */
#include "nlprules.h"

#include <stdio.h>
#include <string.h>

/* The official server's default profiles (config/default_5.yml and
 * default_en_5.yml), in their order: twelve male, then twelve female. */
static const char *const names_en[] = {"Minato", "Takumi",  "Kenji", "Ryuji",  "Daisuke", "Shion",
                                       "Benjamin", "Toshio", "Jonathan", "Shunichi", "George", "Servas",
                                       "Sakura", "Rin",     "Yumi",  "May",    "Misaki",  "Mio",
                                       "Mizuki", "Minako",  "Asuka", "Midori", "Victoria", "Shizue"};
static const char *const names_ja[] = {"ミナト", "タクミ", "ケンジ", "リュウジ", "ダイスケ", "シオン",
                                       "ベンジャミン", "トシオ", "ジョナサン", "シュンイチ", "ジョージ", "セルヴァス",
                                       "サクラ", "リン", "ユミ", "メイ", "ミサキ", "ミオ",
                                       "ミヅキ", "ミナコ", "アスカ", "ミドリ", "ヴィクトリア", "シズエ"};
_Static_assert(sizeof names_en / sizeof *names_en >= AW_MAX_PLAYERS, "a name for every agent");
_Static_assert(sizeof names_ja / sizeof *names_ja >= AW_MAX_PLAYERS, "a name for every agent");

const char *aw_nlp_character(const aw_settings *s, int agent)
{
    if (agent < 1 || agent > AW_MAX_PLAYERS)
        return NULL;
    switch (s->character_names) {
    case AW_NAMES_EN:
        return names_en[agent - 1];
    case AW_NAMES_JA:
        return names_ja[agent - 1];
    case AW_NAMES_NONE:
        break;
    }
    return NULL;
}

int aw_nlp_agent_of(const aw_settings *s, int n, const char *name, size_t len)
{
    for (int a = 1; a <= n && a <= AW_MAX_PLAYERS; a++) {
        const char *c = aw_nlp_character(s, a);
        if (c && strlen(c) == len && memcmp(c, name, len) == 0)
            return a;
        char agent[16];
        snprintf(agent, sizeof agent, "Agent[%02d]", a);
        if (strlen(agent) == len && memcmp(agent, name, len) == 0)
            return a;
    }
    return 0;
}

/* Spaces are kept but not counted: ASCII space, tab, ideographic space. */
static size_t space_len(const char *s, size_t left)
{
    if (left >= 1 && (s[0] == ' ' || s[0] == '\t'))
        return 1;
    if (left >= 3 && memcmp(s, "\xe3\x80\x80", 3) == 0)
        return 3;
    return 0;
}

/* How many bytes of s[0..len) hold at most limit counted characters
 * (limit 0: no limit): the cut falls just before the first character past
 * the limit. A byte that is not valid UTF-8 counts as one character. */
static size_t keep_bytes(const char *s, size_t len, int limit)
{
    if (limit <= 0)
        return len;
    size_t i = 0;
    int counted = 0;
    while (i < len) {
        size_t sp = space_len(s + i, len - i);
        if (sp) {
            i += sp;
            continue;
        }
        if (counted == limit)
            break;
        size_t c = aw_utf8_char_len(s + i, len - i);
        i += c ? c : 1;
        counted++;
    }
    return i;
}

/* Where the first "@Name" of an agent other than speaker starts in text, or
 * -1; *mlen: the mention's length in bytes. The earliest wins; at the same
 * place, the first agent in number order (as the official server). */
static long first_mention(const aw_settings *s, int n, int speaker, const char *text, size_t len, size_t *mlen)
{
    long best = -1;
    for (int a = 1; a <= n; a++) {
        const char *c = aw_nlp_character(s, a);
        if (!c || a == speaker)
            continue;
        size_t cl = strlen(c);
        for (size_t i = 0; i + 1 + cl <= len; i++) {
            if (best >= 0 && (long)i >= best)
                break;
            if (text[i] == '@' && memcmp(text + i + 1, c, cl) == 0) {
                best = (long)i;
                *mlen = cl + 1;
                break;
            }
        }
    }
    return best;
}

bool aw_nlp_cut(const aw_settings *s, int n, int speaker, const char *text, size_t len, aw_buf *out)
{
    if (s->talk_length <= 0 && s->mention_length <= 0) {
        aw_buf_add(out, text, len);
        return false;
    }
    size_t mlen = 0;
    long at = first_mention(s, n, speaker, text, len, &mlen);
    size_t before = at < 0 ? len : (size_t)at;
    size_t keep = keep_bytes(text, before, s->talk_length);
    aw_buf_add(out, text, keep);
    bool cut = keep < before;
    if (at >= 0) {
        const char *after = text + at + mlen;
        size_t alen = len - (size_t)at - mlen;
        size_t akeep = keep_bytes(after, alen, s->mention_length);
        aw_buf_add(out, text + at, mlen);
        aw_buf_add(out, after, akeep);
        cut |= akeep < alen;
    }
    return cut;
}
