/* nlprules: character names and the length rule of the NLP division (see
 * nlprules.h). Uses settings, protocol and util. */
#include "nlprules.h"

#include "protocol.h"

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

/* Agent a's entry of en or ja (n entries each), by s's character names;
 * NULL past them or with none. */
static const char *by_names(const aw_settings *s, int agent, const char *const *en, const char *const *ja, int n)
{
    if (agent < 1 || agent > n || agent > AW_MAX_PLAYERS)
        return NULL;
    switch (s->character_names) {
    case AW_NAMES_EN:
        return en[agent - 1];
    case AW_NAMES_JA:
        return ja[agent - 1];
    case AW_NAMES_NONE:
        break;
    }
    return NULL;
}

const char *aw_nlp_character(const aw_settings *s, int agent)
{
    return by_names(s, agent, names_en, names_ja, (int)(sizeof names_en / sizeof *names_en));
}

/* Our own profiles (written for this project) of the characters the nlp
 * presets seat, agent 1 first: age, then who the character is and how it
 * talks, one line each. */
static const char *const profiles_en[] = {
    "Age: 24\nA ferry deckhand who says what he thinks in few words and trusts his first impression.",
    "Age: 31\nA carpenter who measures twice: slow to accuse, hard to move once he has.",
    "Age: 45\nThe village's postman; knows everyone's business and likes to remind them of it.",
    "Age: 19\nA student home for the summer, quick to joke and quicker to take offence.",
    "Age: 52\nA retired policeman who asks short questions and watches how people answer.",
    "Age: 27\nA quiet violinist who notices small changes in tone and speaks only when sure.",
    "Age: 38\nA visiting engineer who reasons aloud, step by step, and expects others to follow.",
    "Age: 67\nA farmer with a long memory who distrusts anyone in a hurry.",
    "Age: 33\nA travelling merchant, friendly to all, who changes sides when the numbers do.",
    "Age: 41\nA schoolteacher who keeps notes of who said what and reads them back.",
    "Age: 58\nA fisherman with a loud laugh who votes with his gut and says so.",
    "Age: 29\nA cook who listens more than he talks, then asks the one awkward question.",
    "Age: 22\nA nurse who calms quarrels and looks for whoever is stirring them up.",
};
static const char *const profiles_ja[] = {
    "年齢: 24\n渡し船の甲板員。思ったことを短く言い、第一印象を信じる。",
    "年齢: 31\n大工。慎重で疑うのは遅いが、一度疑うとなかなか考えを変えない。",
    "年齢: 45\n村の郵便配達員。皆の事情に詳しく、それを口にしたがる。",
    "年齢: 19\n夏休みで帰省中の学生。冗談が好きで、すぐにむっとする。",
    "年齢: 52\n元警察官。短く質問し、相手の答え方をじっと見る。",
    "年齢: 27\n物静かなバイオリン奏者。口調の小さな変化に気づき、確信した時だけ話す。",
    "年齢: 38\n村を訪れている技師。順を追って声に出して考え、皆にもついて来てほしい。",
    "年齢: 67\n記憶力のよい農家。急いでいる者を信用しない。",
    "年齢: 33\n旅の商人。誰にでも愛想がよく、形勢が変われば味方も変える。",
    "年齢: 41\n学校の先生。誰が何を言ったかを書き留め、読み返す。",
    "年齢: 58\n笑い声の大きい漁師。勘で投票し、それを隠さない。",
    "年齢: 29\n料理人。話すより聞くほうが多く、最後に気まずい質問をひとつする。",
    "年齢: 22\n看護師。口論をなだめつつ、それを煽る者を探す。",
};
_Static_assert(sizeof profiles_en == sizeof profiles_ja, "a profile in each language");

const char *aw_nlp_profile(const aw_settings *s, int agent)
{
    return by_names(s, agent, profiles_en, profiles_ja, (int)(sizeof profiles_en / sizeof *profiles_en));
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

/* The bytes of the character at s (at least 1) and whether it is white
 * space as Go's unicode.IsSpace says (nlprules.h). */
static size_t char_at(const unsigned char *s, size_t left, bool *space)
{
    size_t n = aw_utf8_char_len((const char *)s, left);
    if (n == 0)
        n = 1;
    unsigned cp = 0;
    if (n == 1)
        cp = s[0];
    else if (n == 2)
        cp = (unsigned)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
    else if (n == 3)
        cp = (unsigned)(s[0] & 0x0f) << 12 | (unsigned)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
    *space = cp == ' ' || (cp >= 9 && cp <= 13) || cp == 0x85 || cp == 0xa0 || cp == 0x1680 ||
             (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f ||
             cp == 0x3000;
    return n;
}

/* Walks s counting as the rule does; stops before the character that would
 * take the count past max (max < 0: never). Returns the bytes to keep: all
 * of s when it fits, else up to the end of the last character counted
 * (with count_spaces every character counts; otherwise white space after
 * the last counted character is not kept, as util.TrimLength cuts).
 * *count gets the count. */
static size_t walk(const char *s, size_t len, int max, bool in_word, bool spaces, int *count)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, end = 0;
    int c = 0;
    bool in = false;
    while (i < len) {
        bool sp;
        size_t n = char_at(u + i, len - i, &sp);
        int add = in_word ? (!sp && !in) : (spaces || !sp);
        if (max >= 0 && c + add > max) {
            *count = c;
            return end;
        }
        c += add;
        in = !sp;
        i += n;
        if (spaces || !sp)
            end = i;
    }
    *count = c;
    return len;
}

int aw_nlp_count_length(const char *s, size_t len, bool count_in_word, bool count_spaces)
{
    int c;
    walk(s, len, -1, count_in_word, count_spaces, &c);
    return c;
}

size_t aw_nlp_trim_length(const char *s, size_t len, int max, bool count_in_word, bool count_spaces)
{
    int c;
    return walk(s, len, max, count_in_word, count_spaces, &c);
}

/* Where the first "@Name" of an agent other than speaker starts in text, or
 * -1; *mlen: the mention's length in bytes. The earliest wins; at the same
 * place, the first agent in number order. */
static long first_mention(const char *const *names, int n, int speaker, const char *text, size_t len, size_t *mlen)
{
    long best = -1;
    for (int a = 1; a <= n; a++) {
        const char *c = names[a];
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

bool aw_nlp_fit(const char *text, size_t len, int speaker, const char *const *names, int n, const aw_nlp_length *r,
                aw_buf *out)
{
    size_t mlen = 0;
    long at = r->mentions ? first_mention(names, n, speaker, text, len, &mlen) : -1;
    size_t before = at < 0 ? len : (size_t)at;
    const char *after = at < 0 ? text + len : text + at + mlen;
    size_t alen = at < 0 ? 0 : len - (size_t)at - mlen;
    size_t keep = aw_nlp_trim_length(text, before, r->before, r->in_word, r->count_spaces);
    size_t akeep = at < 0 ? 0 : aw_nlp_trim_length(after, alen, r->after, r->in_word, r->count_spaces);
    if (r->per_talk >= 0) {
        /* as the server does (logic/communication.go): when the text before
         * the mention alone is past per_talk, it is cut and the mention and
         * what follows go; else what follows gets what is left */
        int used = aw_nlp_count_length(text, keep, r->in_word, r->count_spaces);
        if (used > r->per_talk) {
            keep = aw_nlp_trim_length(text, keep, r->per_talk, r->in_word, r->count_spaces);
            at = -1;
        } else if (at >= 0) {
            akeep = aw_nlp_trim_length(after, akeep, r->per_talk - used, r->in_word, r->count_spaces);
        }
    }
    aw_buf_add(out, text, keep);
    bool cut = keep < before;
    if (at >= 0) {
        aw_buf_add(out, text + at, mlen);
        aw_buf_add(out, after, akeep);
        cut |= akeep < alen;
    } else {
        cut |= before < len; /* the mention dropped */
    }
    return cut;
}

bool aw_nlp_cut(const aw_settings *s, int n, int speaker, const char *text, size_t len, aw_buf *out)
{
    if (s->talk_length <= 0 && s->mention_length <= 0) {
        aw_buf_add(out, text, len);
        return false;
    }
    const char *names[AW_MAX_PLAYERS + 1] = {NULL};
    if (n > AW_MAX_PLAYERS)
        n = AW_MAX_PLAYERS;
    for (int a = 1; a <= n; a++)
        names[a] = aw_nlp_character(s, a);
    aw_nlp_length r = {.mentions = true,
                       .before = s->talk_length > 0 ? s->talk_length : -1,
                       .after = s->mention_length > 0 ? s->mention_length : -1,
                       .per_talk = -1};
    return aw_nlp_fit(text, len, speaker, names, n, &r, out);
}

/* ---- protocol sentences in natural language ---- */

/* Appends text with each Agent[NN] (1..n) replaced by its name. */
static void add_named(aw_buf *out, const char *s, size_t len, const char *const *names, int n)
{
    size_t i = 0;
    while (i < len) {
        if (len - i >= 9 && !memcmp(s + i, "Agent[", 6) && s[i + 6] >= '0' && s[i + 6] <= '9' && s[i + 7] >= '0' &&
            s[i + 7] <= '9' && s[i + 8] == ']') {
            int k = (s[i + 6] - '0') * 10 + (s[i + 7] - '0');
            if (k >= 1 && k <= n && names[k]) {
                aw_buf_adds(out, names[k]);
                i += 9;
                continue;
            }
        }
        aw_buf_addc(out, s[i++]);
    }
}

void aw_nlp_one_line(const char *s, size_t len, aw_buf *out)
{
    size_t i = 0;
    while (i < len) {
        size_t n = aw_utf8_char_len(s + i, len - i);
        if (n == 0) {
            i++;
            continue;
        }
        unsigned char c = (unsigned char)s[i];
        if (n == 1 && (c < 0x20 || c == 0x7f))
            aw_buf_addc(out, ' ');
        else
            aw_buf_add(out, s + i, n);
        i += n;
    }
}

bool aw_nlp_render(const char *text, size_t len, int speaker, const char *const *names, int n, const char *lang,
                   aw_buf *out)
{
    bool plain = len == 4 && (!memcmp(text, "Skip", 4) || !memcmp(text, "Over", 4));
    aw_sentence *s = plain ? NULL : aw_protocol_parse(text, len, AW_VALIDATE_LENIENT, NULL);
    if (!s) {
        aw_nlp_one_line(text, len, out);
        return false;
    }
    aw_buf d, named;
    aw_buf_init(&d);
    aw_buf_init(&named);
    aw_protocol_describe(s, speaker, lang, &d);
    add_named(&named, d.data ? d.data : "", d.len, names, n);
    aw_nlp_one_line(named.data ? named.data : "", named.len, out);
    aw_buf_free(&d);
    aw_buf_free(&named);
    aw_sentence_free(s);
    return true;
}

const char *aw_nlp_lang(const aw_settings *s)
{
    return s->character_names == AW_NAMES_JA ? "ja" : "en";
}
