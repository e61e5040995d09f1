/* settings: the official role tables, the three presets and
 * "name=value" overrides. Uses roles and util. */
#include "settings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int aw_default_roles(int players, int counts[AW_NROLES], aw_error *err)
{
    memset(counts, 0, sizeof(int) * AW_NROLES);
    if (players < AW_MIN_PLAYERS || players > AW_MAX_PLAYERS)
        return aw_fail(err, AW_EINVAL, "there is no role table for %d players (%d to %d)", players,
                       AW_MIN_PLAYERS, AW_MAX_PLAYERS);
    /* The official GameSetting.getDefaultGame tables. */
    counts[AW_SEER] = 1;
    counts[AW_WEREWOLF] = 1;
    if (players <= 4) {
        counts[AW_VILLAGER] = players - 2;
    } else if (players <= 6) {
        counts[AW_POSSESSED] = 1;
        counts[AW_VILLAGER] = players - 3;
    } else if (players <= 9) {
        counts[AW_WEREWOLF] = 2;
        counts[AW_MEDIUM] = players >= 8 ? 1 : 0;
        counts[AW_VILLAGER] = players - 3 - counts[AW_MEDIUM];
    } else {
        counts[AW_WEREWOLF] = players >= 12 ? 3 : 2;
        counts[AW_MEDIUM] = 1;
        counts[AW_BODYGUARD] = 1;
        counts[AW_POSSESSED] = 1;
        counts[AW_VILLAGER] = players - 4 - counts[AW_WEREWOLF];
    }
    return 0;
}

int aw_parse_roles(const char *spec, int counts[AW_NROLES], int *players, aw_error *err)
{
    memset(counts, 0, sizeof(int) * AW_NROLES);
    int total = 0;
    const char *p = spec;
    if (!*p)
        return aw_fail(err, AW_EINVAL, "empty role list (expected ROLE=COUNT,...)");
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[64];
        if (len == 0 || len >= sizeof item)
            return aw_fail(err, AW_EINVAL, "bad role list entry near '%.*s' (expected ROLE=COUNT)",
                           (int)(len < 32 ? len : 32), p);
        memcpy(item, p, len);
        item[len] = '\0';
        char *eq = strchr(item, '=');
        if (!eq)
            return aw_fail(err, AW_EINVAL, "bad role list entry '%s' (expected ROLE=COUNT)", item);
        *eq = '\0';
        for (char *c = item; *c; c++)
            if (*c >= 'a' && *c <= 'z')
                *c = (char)(*c - 'a' + 'A');
        aw_role r = aw_role_parse(item);
        if (r == AW_ROLE_NONE) {
            char names[256];
            aw_role_list(names, sizeof names, " ", true);
            return aw_fail(err, AW_EINVAL, "unknown role '%s' (roles: %s)", item, names);
        }
        long n;
        if (aw_parse_long(eq + 1, 0, AW_MAX_PLAYERS, &n) != 0)
            return aw_fail(err, AW_EINVAL, "bad count '%s' for %s (0 to %d)", eq + 1, item, AW_MAX_PLAYERS);
        counts[r] = (int)n;
        p += len;
        if (*p == ',')
            p++;
    }
    for (int r = 0; r < AW_NROLES; r++)
        total += counts[r];
    *players = total;
    return 0;
}

int aw_settings_preset_players(const char *preset)
{
    if (strcmp(preset, "nlp5") == 0 || strcmp(preset, "nlp5-en") == 0)
        return 5;
    if (strcmp(preset, "nlp13") == 0 || strcmp(preset, "nlp13-en") == 0)
        return 13;
    return 0;
}

/* The NLP division's rules (aiwolfdial's aiwolf-nlp-server, its
 * config/default_5.yml and default_13.yml; "-en": default_en_*.yml) on top
 * of the official defaults: 4 talks per agent per day, no Skip (a Skip is an Over), free text, 60 s per action,
 * talk on day 0, the length rule, the characters' names, and the NLP role
 * tables for 5 and 13 players (and one for 9 of ours: the official server
 * has none). */
static int nlp_preset(aw_settings *s, const char *preset, int players, aw_error *err)
{
    /* nlp5 and nlp13 are nlp for the size they name (aw_settings_preset_players) */
    bool en = strcmp(preset, "nlp-en") == 0 || strcmp(preset, "nlp5-en") == 0 || strcmp(preset, "nlp13-en") == 0;
    if (!en && strcmp(preset, "nlp") != 0 && !aw_settings_preset_players(preset))
        return aw_fail(err, AW_EINVAL, "unknown preset '%s' (NLP presets: nlp, nlp-en, nlp5, nlp13, nlp5-en, nlp13-en)",
                       preset);
    int *c = s->role_count;
    if (players == 5 || players == 9 || players == 13) {
        memset(c, 0, sizeof(int) * AW_NROLES);
        c[AW_WEREWOLF] = players == 5 ? 1 : players == 9 ? 2 : 3;
        c[AW_POSSESSED] = 1;
        c[AW_SEER] = 1;
        c[AW_MEDIUM] = players >= 9;
        c[AW_BODYGUARD] = players == 13;
        c[AW_VILLAGER] = players - c[AW_WEREWOLF] - 2 - c[AW_MEDIUM] - c[AW_BODYGUARD];
    }
    /* The official per_day counts rounds of the talk (20 for 5 players,
     * 52 for 13), more than 4 talks an agent ever need; ours are the same
     * for every size, as every rule but the role table must be (a log's
     * rules file holds one set for all sizes). */
    s->max_talk = 4;
    s->max_talk_turn = 20;
    s->max_whisper = 4;
    s->max_whisper_turn = 12;
    s->max_skip = 0;
    s->talk_on_first_day = true;
    s->validation = AW_VALIDATE_OFF;
    s->time_limit_ms = 60000;
    s->talk_length = en ? 125 : 50;
    s->mention_length = en ? 125 : 50;
    s->character_names = en ? AW_NAMES_EN : AW_NAMES_JA;
    /* server.max_continue_error_ratio and timeout.response */
    s->error_ratio = 200;
    s->ping_timeout_ms = 120000;
    return 0;
}

int aw_settings_preset(aw_settings *s, const char *preset, int players, aw_error *err)
{
    memset(s, 0, sizeof *s);
    int rc = aw_default_roles(players, s->role_count, err);
    if (rc)
        return rc;
    s->players = players;

    /* The official server 0.6.x defaults (GameSetting.getDefaultGame). */
    s->talk_mode = AW_TALK_TURNS;
    s->max_talk = 10;
    s->max_talk_turn = 20;
    s->max_whisper = 10;
    s->max_whisper_turn = 20;
    s->max_skip = 2;
    s->talk_end_all_skip_turns = 0;
    s->talk_on_first_day = false;
    s->whisper_on_first_night = true;
    s->whisper_at_night = true;
    s->whisper_single_wolf = false;
    s->max_revote = 1;
    s->max_attack_revote = 1;
    s->whisper_before_revote = false;
    s->enable_no_attack = false;
    s->enable_no_execution = false;
    s->vote_visible = true;
    s->invalid_attack = AW_INVALID_DROP;
    s->invalid_divine = AW_INVALID_DROP;
    s->invalid_guard = AW_INVALID_DROP;
    s->divine_dead_target = false;
    s->guard_dead_target = true;
    s->validation = AW_VALIDATE_STRICT;
    s->time_limit_ms = 1000;
    /* No game with an execution every day lasts this long; only settings
     * that allow days without a death (no execution after a tie, no attack)
     * can reach it, and then it stops a game that could go on forever. */
    s->max_days = 100;

    if (strcmp(preset, "aiwolf") == 0) {
        /* as above */
    } else if (strcmp(preset, "regulation") == 0) {
        /* 2021-2023 regulation: talk also ends after three turns in a row in
         * which nobody said anything real; a guard on a dead agent does
         * nothing; 100 ms per call. */
        s->talk_end_all_skip_turns = 3;
        s->guard_dead_target = false;
        s->time_limit_ms = 100;
    } else if (strcmp(preset, "seed2015") == 0) {
        /* Seed 003: talk in at most 10 rounds with werewolf whispers after each
         * round, no talk limits, no revotes, random substitutes for every
         * invalid action, nothing on day 0 but the divination. */
        s->talk_mode = AW_TALK_ROUNDS;
        s->max_talk = 0;
        s->max_talk_turn = 10;
        s->max_whisper = 0;
        s->max_whisper_turn = 10;
        s->max_skip = -1;
        s->whisper_on_first_night = false;
        s->whisper_at_night = false;
        s->max_revote = 0;
        s->max_attack_revote = 0;
        s->invalid_attack = AW_INVALID_RANDOM;
        s->invalid_divine = AW_INVALID_RANDOM;
        s->invalid_guard = AW_INVALID_RANDOM;
        s->guard_dead_target = false;
        /* "The seer gets the result even if the target was exiled": the seer
         * chooses after the exile, so a dead target is accepted. */
        s->divine_dead_target = true;
        s->validation = AW_VALIDATE_LENIENT;
        s->time_limit_ms = 100;
    } else if (strncmp(preset, "nlp", 3) == 0) {
        rc = nlp_preset(s, preset, players, err);
        if (rc)
            return rc;
    } else {
        return aw_fail(err, AW_EINVAL,
                       "unknown preset '%s' (presets: aiwolf, seed2015, regulation, nlp, nlp-en, nlp5, nlp13, "
                       "nlp5-en, nlp13-en)",
                       preset);
    }
    snprintf(s->preset, sizeof s->preset, "%s", preset);
    return 0;
}

/* The table of named settings: one row per field, used by --set and by
 * aw_settings_describe. */
typedef enum { T_INT, T_BOOL, T_TALKMODE, T_INVALID, T_VALIDATION, T_NAMES, T_RATIO } field_type;

typedef struct {
    const char *name;
    field_type type;
    size_t offset;
    int lo, hi;
    /* The official server's names for it, as in its gameSetting packet
     * (and the Lua `setting` table) and as its Java GameSetting fields. */
    const char *official, *java;
} field;

#define F(name, type, lo, hi) {#name, type, offsetof(aw_settings, name), lo, hi, NULL, NULL}
#define O(name, type, lo, hi, official, java) {#name, type, offsetof(aw_settings, name), lo, hi, official, java}
static const field fields[] = {
    F(talk_mode, T_TALKMODE, 0, 0),
    O(max_talk, T_INT, 0, 1000000, "maxTalk", NULL),
    O(max_talk_turn, T_INT, 1, 1000, "maxTalkTurn", NULL),
    O(max_whisper, T_INT, 0, 1000000, "maxWhisper", NULL),
    O(max_whisper_turn, T_INT, 1, 1000, "maxWhisperTurn", NULL),
    O(max_skip, T_INT, -1, 1000, "maxSkip", NULL),
    F(talk_end_all_skip_turns, T_INT, 0, 1000),
    O(talk_on_first_day, T_BOOL, 0, 1, "talkOnFirstDay", "isTalkOnFirstDay"),
    F(whisper_on_first_night, T_BOOL, 0, 1),
    F(whisper_at_night, T_BOOL, 0, 1),
    F(whisper_single_wolf, T_BOOL, 0, 1),
    O(max_revote, T_INT, 0, 100, "maxRevote", NULL),
    O(max_attack_revote, T_INT, 0, 100, "maxAttackRevote", NULL),
    O(whisper_before_revote, T_BOOL, 0, 1, "whisperBeforeRevote", "isWhisperBeforeRevote"),
    O(enable_no_attack, T_BOOL, 0, 1, "enableNoAttack", "isEnableNoAttack"),
    O(enable_no_execution, T_BOOL, 0, 1, "enableNoExecution", "isEnableNoExecution"),
    O(vote_visible, T_BOOL, 0, 1, "voteVisible", "isVoteVisible"),
    F(invalid_attack, T_INVALID, 0, 0),
    F(invalid_divine, T_INVALID, 0, 0),
    F(invalid_guard, T_INVALID, 0, 0),
    F(divine_dead_target, T_BOOL, 0, 1),
    F(guard_dead_target, T_BOOL, 0, 1),
    F(validation, T_VALIDATION, 0, 0),
    O(time_limit_ms, T_INT, 1, 3600000, "timeLimit", NULL),
    F(max_days, T_INT, 0, 1000000),
    F(talk_length, T_INT, 0, 8192),
    F(mention_length, T_INT, 0, 8192),
    F(character_names, T_NAMES, 0, 0),
    F(error_ratio, T_RATIO, 0, 1000),
    F(ping_timeout_ms, T_INT, 0, 3600000),
    F(talk_duration, T_INT, 0, 3600000),
    F(whisper_duration, T_INT, 0, 3600000),
};
#undef F
#undef O
#define NFIELDS (sizeof fields / sizeof fields[0])

static const char *const talk_modes[] = {"turns", "rounds"};
static const char *const invalid_names[] = {"drop", "random"};
static const char *const validation_names[] = {"strict", "lenient", "off"};
static const char *const names_names[] = {"none", "en", "ja"};

/* "0.2", "0", "1", ".25", "0.125" as thousandths (200, 0, 1000, 250,
 * 125); -1 for anything else or past 1. */
static int parse_ratio(const char *v)
{
    int whole = 0, frac = 0, digits = 0;
    const char *p = v;
    if (*p == '0' || *p == '1')
        whole = *p++ - '0';
    else if (*p != '.')
        return -1;
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9' && digits < 3) {
            frac = frac * 10 + (*p++ - '0');
            digits++;
        }
        if (digits == 0)
            return -1;
        for (int k = digits; k < 3; k++)
            frac *= 10;
    }
    if (*p || (p == v))
        return -1;
    int r = whole * 1000 + frac;
    return r <= 1000 ? r : -1;
}

static void print_ratio(aw_buf *buf, int r)
{
    if (r % 1000 == 0) {
        aw_buf_printf(buf, "%d\n", r / 1000);
        return;
    }
    int f = r % 1000;
    char d[4] = {(char)('0' + f / 100), (char)('0' + f / 10 % 10), (char)('0' + f % 10), '\0'};
    for (int k = 2; k > 0 && d[k] == '0'; k--)
        d[k] = '\0';
    aw_buf_printf(buf, "%d.%s\n", r / 1000, d);
}

int aw_settings_error_limit(const aw_settings *s, int players)
{
    if (s->error_ratio <= 0)
        return 0;
    /* as the official server: int(float64(agents) * ratio), here exactly */
    int k = players * s->error_ratio / 1000;
    return k >= 1 ? k : 1;
}

static int parse_enum(const char *v, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v, names[i]) == 0)
            return i;
    return -1;
}

int aw_settings_set(aw_settings *s, const char *assignment, aw_error *err)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment)
        return aw_fail(err, AW_EINVAL, "bad setting '%s' (expected name=value)", assignment);
    size_t nlen = (size_t)(eq - assignment);
    const char *v = eq + 1;
    for (size_t i = 0; i < NFIELDS; i++) {
        const field *f = &fields[i];
        const char *names[3] = {f->name, f->official, f->java};
        bool named = false;
        for (int k = 0; k < 3; k++)
            named |= names[k] && strlen(names[k]) == nlen && strncmp(names[k], assignment, nlen) == 0;
        if (!named)
            continue;
        void *p = (char *)s + f->offset;
        long n;
        int e;
        switch (f->type) {
        case T_INT:
            if (aw_parse_long(v, f->lo, f->hi, &n) != 0)
                return aw_fail(err, AW_EINVAL, "setting %s: '%s' is not an integer from %d to %d", f->name, v,
                               f->lo, f->hi);
            *(int *)p = (int)n;
            return 0;
        case T_BOOL:
            if (strcmp(v, "true") == 0 || strcmp(v, "1") == 0)
                *(bool *)p = true;
            else if (strcmp(v, "false") == 0 || strcmp(v, "0") == 0)
                *(bool *)p = false;
            else
                return aw_fail(err, AW_EINVAL, "setting %s: '%s' is not true or false", f->name, v);
            return 0;
        case T_TALKMODE:
            if ((e = parse_enum(v, talk_modes, 2)) < 0)
                return aw_fail(err, AW_EINVAL, "setting %s: '%s' is not turns or rounds", f->name, v);
            *(aw_talk_mode *)p = (aw_talk_mode)e;
            return 0;
        case T_INVALID:
            if ((e = parse_enum(v, invalid_names, 2)) < 0)
                return aw_fail(err, AW_EINVAL, "setting %s: '%s' is not drop or random", f->name, v);
            *(aw_invalid_action *)p = (aw_invalid_action)e;
            return 0;
        case T_VALIDATION:
            if ((e = parse_enum(v, validation_names, 3)) < 0)
                return aw_fail(err, AW_EINVAL, "setting %s: '%s' is not strict, lenient or off", f->name, v);
            *(aw_validation *)p = (aw_validation)e;
            return 0;
        case T_NAMES:
            if ((e = parse_enum(v, names_names, 3)) < 0)
                return aw_fail(err, AW_EINVAL, "setting %s: '%s' is not none, en or ja", f->name, v);
            *(aw_names *)p = (aw_names)e;
            return 0;
        case T_RATIO:
            if ((e = parse_ratio(v)) < 0)
                return aw_fail(err, AW_EINVAL, "setting %s: '%s' is not a ratio from 0 to 1 (at most 3 decimals)",
                               f->name, v);
            *(int *)p = e;
            return 0;
        }
    }
    return aw_fail(err, AW_EINVAL,
                   "unknown setting '%.*s' (--list-settings lists them; the official names such as maxTalk work "
                   "too)",
                   (int)nlen, assignment);
}

int aw_settings_from(aw_settings *s, const char *preset, int players, const char *const *sets, int nsets,
                     aw_error *err)
{
    int rc = aw_settings_preset(s, preset, players, err);
    for (int i = 0; rc == 0 && i < nsets; i++)
        rc = aw_settings_set(s, sets[i], err);
    return rc;
}

void aw_settings_describe(const aw_settings *s, aw_buf *buf)
{
    aw_buf_printf(buf, "preset=%s\nplayers=%d\nroles=", s->preset, s->players);
    int first = 1;
    for (int r = 0; r < AW_NROLES; r++) {
        if (!s->role_count[r])
            continue;
        aw_buf_printf(buf, "%s%s=%d", first ? "" : ",", aw_role_name((aw_role)r), s->role_count[r]);
        first = 0;
    }
    aw_buf_addc(buf, '\n');
    for (size_t i = 0; i < NFIELDS; i++) {
        const field *f = &fields[i];
        const void *p = (const char *)s + f->offset;
        aw_buf_printf(buf, "%s=", f->name);
        switch (f->type) {
        case T_INT:
            aw_buf_printf(buf, "%d\n", *(const int *)p);
            break;
        case T_BOOL:
            aw_buf_printf(buf, "%s\n", *(const bool *)p ? "true" : "false");
            break;
        case T_TALKMODE:
            aw_buf_printf(buf, "%s\n", talk_modes[*(const aw_talk_mode *)p]);
            break;
        case T_INVALID:
            aw_buf_printf(buf, "%s\n", invalid_names[*(const aw_invalid_action *)p]);
            break;
        case T_VALIDATION:
            aw_buf_printf(buf, "%s\n", validation_names[*(const aw_validation *)p]);
            break;
        case T_NAMES:
            aw_buf_printf(buf, "%s\n", names_names[*(const aw_names *)p]);
            break;
        case T_RATIO:
            print_ratio(buf, *(const int *)p);
            break;
        }
    }
}

/* The werewolves the role table deals (every role that counts as one). */
static int wolf_count(const aw_settings *s)
{
    int n = 0;
    for (int r = 0; r < AW_NROLES; r++)
        if (aw_role_is_wolf((aw_role)r))
            n += s->role_count[r];
    return n;
}

int aw_settings_check(const aw_settings *s, aw_error *err)
{
    if (s->players < AW_MIN_PLAYERS || s->players > AW_MAX_PLAYERS)
        return aw_fail(err, AW_EINVAL, "a game needs %d to %d players, not %d", AW_MIN_PLAYERS, AW_MAX_PLAYERS,
                       s->players);
    int total = 0;
    for (int r = 0; r < AW_NROLES; r++) {
        if (s->role_count[r] < 0)
            return aw_fail(err, AW_EINVAL, "negative count for %s", aw_role_name((aw_role)r));
        total += s->role_count[r];
    }
    if (total != s->players)
        return aw_fail(err, AW_EINVAL, "the roles add up to %d players, but the game has %d", total, s->players);
    for (int r = 0; r < AW_NROLES; r++)
        if (s->role_count[r] && !aw_role_info_of((aw_role)r)->supported)
            return aw_fail(err, AW_EINVAL, "the %s role is not supported", aw_role_name((aw_role)r));
    if (wolf_count(s) < 1)
        return aw_fail(err, AW_EINVAL, "a game needs at least one WEREWOLF");
    return 0;
}

int aw_settings_check_playable(const aw_settings *s, aw_error *err)
{
    int rc = aw_settings_check(s, err);
    if (rc < 0)
        return rc;
    int wolves = wolf_count(s);
    int humans = s->players - wolves;
    if (aw_winner(humans, wolves) != AW_TEAM_NONE) /* (wolves >= 1: aw_settings_check) */
        return aw_fail(err, AW_EINVAL,
                       "impossible role table: %d werewolves against %d humans is decided before it starts",
                       wolves, humans);
    return 0;
}
