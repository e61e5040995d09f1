/* test_nlprules: the NLP division's presets, character names and length
 * rule (nlprules.h) with English and Japanese text: what is kept before and
 * after the first mention, spaces not counted, a multibyte character never
 * split, the speaker's own name not a mention, and a cut text cut again
 * unchanged (what `aiwolf replay` relies on). */
#include <stdlib.h>

#include "nlprules.h"
#include "settings.h"
#include "test.h"

static char *cut(const aw_settings *s, int speaker, const char *text, int *was_cut)
{
    aw_buf b;
    aw_buf_init(&b);
    *was_cut = aw_nlp_cut(s, 5, speaker, text, strlen(text), &b);
    aw_buf_addc(&b, '\0');
    char *r = strdup(b.data);
    aw_buf_free(&b);
    /* cut again: unchanged */
    aw_buf c;
    aw_buf_init(&c);
    CHECK(!aw_nlp_cut(s, 5, speaker, r, strlen(r), &c));
    CHECK_INT(c.len, strlen(r));
    CHECK(c.len == 0 || memcmp(c.data, r, c.len) == 0);
    aw_buf_free(&c);
    return r;
}

int main(void)
{
    aw_settings s;
    aw_error err;
    int was;

    /* presets */
    CHECK_INT(aw_settings_preset(&s, "nlp5", 5, &err), 0);
    CHECK_INT(s.role_count[AW_WEREWOLF], 1);
    CHECK_INT(s.role_count[AW_POSSESSED], 1);
    CHECK_INT(s.role_count[AW_SEER], 1);
    CHECK_INT(s.role_count[AW_VILLAGER], 2);
    CHECK_INT(s.max_talk, 4);
    CHECK_INT(s.max_skip, 0);
    CHECK_INT(s.talk_length, 50);
    CHECK_INT(s.time_limit_ms, 60000);
    CHECK_INT(s.validation, AW_VALIDATE_OFF);
    CHECK_INT(aw_settings_check_playable(&s, &err), 0);
    CHECK_INT(aw_settings_preset(&s, "nlp13-en", 13, &err), 0);
    CHECK_INT(s.role_count[AW_WEREWOLF], 3);
    CHECK_INT(s.role_count[AW_BODYGUARD], 1);
    CHECK_INT(s.role_count[AW_MEDIUM], 1);
    CHECK_INT(s.role_count[AW_VILLAGER], 6);
    CHECK_INT(s.max_whisper_turn, 12);
    CHECK_INT(s.max_talk_turn, 20);
    CHECK_INT(s.talk_length, 125);
    CHECK_INT(aw_settings_check_playable(&s, &err), 0);
    /* every rule but the roles is the same for every size (a rules file
     * holds one set for a folder of logs of any size) */
    for (int n = AW_MIN_PLAYERS; n <= AW_MAX_PLAYERS; n++) {
        aw_settings a, b;
        CHECK_INT(aw_settings_preset(&a, "nlp", n, &err), 0);
        CHECK_INT(aw_settings_preset(&b, "nlp", 5, &err), 0);
        memcpy(a.role_count, b.role_count, sizeof a.role_count);
        a.players = b.players;
        CHECK_MSG(memcmp(&a, &b, sizeof a) == 0, "nlp with %d players differs from 5 in more than roles", n);
    }
    CHECK_INT(aw_settings_preset(&s, "nlp", 9, &err), 0);
    CHECK_INT(s.role_count[AW_WEREWOLF], 2);
    CHECK_INT(aw_settings_check_playable(&s, &err), 0);
    CHECK_INT(aw_settings_preset_players("nlp13"), 13);
    CHECK_INT(aw_settings_preset_players("nlp5-en"), 5);
    CHECK_INT(aw_settings_preset_players("nlp"), 0);
    CHECK(aw_settings_preset(&s, "nlp7", 7, &err) < 0);
    CHECK_INT(aw_settings_preset(&s, "nlp5", 5, &err), 0);
    CHECK_INT(aw_settings_set(&s, "character_names=en", &err), 0);
    CHECK(aw_settings_set(&s, "character_names=fr", &err) < 0);

    /* names both ways */
    CHECK_STR(aw_nlp_character(&s, 1), "Minato");
    CHECK_STR(aw_nlp_character(&s, 5), "Daisuke");
    CHECK_INT(aw_nlp_agent_of(&s, 5, "Takumi", 6), 2);
    CHECK_INT(aw_nlp_agent_of(&s, 5, "Agent[03]", 9), 3);
    CHECK_INT(aw_nlp_agent_of(&s, 5, "Shion", 5), 0); /* agent 6: not in a game of 5 */
    CHECK_INT(aw_nlp_agent_of(&s, 5, "Minat", 5), 0);
    aw_settings ja;
    CHECK_INT(aw_settings_preset(&ja, "nlp5", 5, &err), 0);
    CHECK_STR(aw_nlp_character(&ja, 1), "ミナト");
    CHECK_INT(aw_nlp_agent_of(&ja, 5, "ケンジ", strlen("ケンジ")), 3);
    ja.character_names = AW_NAMES_NONE;
    CHECK(aw_nlp_character(&ja, 1) == NULL);

    /* English: 10 characters before the mention, 5 after */
    s.talk_length = 10;
    s.mention_length = 5;
    char *r = cut(&s, 1, "short", &was);
    CHECK_STR(r, "short");
    CHECK(!was);
    free(r);
    r = cut(&s, 1, "one two three four", &was); /* spaces not counted: 10 letters */
    CHECK_STR(r, "one two thre");
    CHECK(was);
    free(r);
    r = cut(&s, 1, "I think @Takumi is a werewolf", &was);
    CHECK_STR(r, "I think @Takumi is a we");
    CHECK(was);
    free(r);
    /* the first mention; the white space after the last character kept
     * goes, as the official server's util.TrimLength cuts */
    r = cut(&s, 1, "well well well well @Kenji hello there @Takumi", &was);
    CHECK_STR(r, "well well we@Kenji hello");
    free(r);
    /* the speaker's own name is no mention */
    r = cut(&s, 1, "@Minato says hello", &was);
    CHECK_STR(r, "@Minato say");
    free(r);
    /* at the same place the first agent wins (no prefix here), the earliest place first */
    r = cut(&s, 3, "hi @Takumi @Minato abcdefgh", &was);
    CHECK_STR(r, "hi @Takumi @Mina");
    free(r);
    /* no limit after the mention */
    s.mention_length = 0;
    r = cut(&s, 1, "abcdefghijkl @Ryuji abcdefghijklmnop", &was);
    CHECK_STR(r, "abcdefghij@Ryuji abcdefghijklmnop");
    free(r);

    /* Japanese: characters, not bytes; the ideographic space is not counted */
    ja.character_names = AW_NAMES_JA;
    ja.talk_length = 5;
    ja.mention_length = 3;
    r = cut(&ja, 2, "あいうえおかきくけこ", &was);
    CHECK_STR(r, "あいうえお");
    CHECK(was);
    free(r);
    r = cut(&ja, 2, "あい　うえおか", &was);
    CHECK_STR(r, "あい　うえお");
    free(r);
    /* every white space of Go's unicode.IsSpace is not counted (here
     * U+00A0), and none is kept after the cut (here U+3000), as the
     * official server counts and cuts */
    r = cut(&ja, 2, "あい\xc2\xa0" "うえおか", &was);
    CHECK_STR(r, "あい\xc2\xa0" "うえお");
    free(r);
    r = cut(&ja, 2, "あいうえお　かき", &was);
    CHECK_STR(r, "あいうえお");
    CHECK(was);
    free(r);
    r = cut(&ja, 2, "ねえ@ミナト、あなたは人狼？", &was);
    CHECK_STR(r, "ねえ@ミナト、あな");
    free(r);
    /* a byte that is not UTF-8 counts as one character, never splits */
    r = cut(&ja, 2, "\xff\xfe" "abcdef", &was);
    CHECK_STR(r, "\xff\xfe" "abc");
    free(r);
    return test_done();
}
