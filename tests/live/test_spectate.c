/* The live spectator stream (spectate.h) on the raw lines, over many games
 * of C players (random and erratic ones, so that substitutes, replaced
 * talks and faults happen): without reveal no role, seed, whisper, night
 * action, failed attack or fault message leaves before the result line, the
 * public lines all do (each talk and vote, in order), and after the result
 * the stream is the game's full record, byte for byte what --events wrote;
 * with reveal the stream is --events from the first line. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cseat.h"
#include "game.h"
#include "spectate.h"
#include "talkhooks.h"
#include "test.h"

static void sink(void *ud, const char *line, size_t len)
{
    aw_buf *b = ud;
    if (len == 0 || line[len - 1] != '\n' || memchr(line, '\n', len) != line + len - 1)
        CHECK_MSG(false, "not one line per call: %.*s", (int)len, line);
    aw_buf_add(b, line, len);
}

/* Plays one game watched by a spectator; returns --events' output and the
 * spectator's stream (caller frees both). */
static char *play(const char *preset, int players, uint64_t seed, const char *set1, bool reveal, aw_buf *stream)
{
    aw_settings set;
    CHECK(aw_settings_preset(&set, preset, players, NULL) == 0);
    if (set1)
        CHECK(aw_settings_set(&set, set1, NULL) == 0);
    aw_seat *seats[AW_MAX_PLAYERS + 1];
    for (int a = 1; a <= players; a++)
        seats[a] = a % 3 ? aw_cseat_random(seed * 17 + (uint64_t)a) : aw_cseat_chaos(seed * 31 + (uint64_t)a);
    char *ev = NULL;
    size_t evlen = 0;
    FILE *evf = open_memstream(&ev, &evlen);
    aw_gamelog log;
    aw_gamelog_init(&log, NULL, NULL, evf);
    aw_spectate *sp = aw_spectate_new(reveal, sink, stream);
    aw_spectate_attach(sp, &log);
    aw_game_opts go;
    memset(&go, 0, sizeof go);
    go.settings = &set;
    go.seed = seed;
    go.log = &log;
    go.game_no = (int)(seed % 7);
    aw_talkhooks_game(&go);
    aw_error err;
    aw_game_result res;
    CHECK(aw_game_play(&go, seats, &res, &err) == 0);
    CHECK(!aw_spectate_running(sp));
    aw_spectate_free(sp);
    aw_gamelog_free(&log);
    fclose(evf);
    for (int a = 1; a <= players; a++)
        seats[a]->ops->free(seats[a]);
    return ev;
}

static bool has(const char *line, size_t len, const char *what)
{
    return memmem(line, len, what, strlen(what)) != NULL;
}

/* The lines of `all` that contain `what`, concatenated. */
static void lines_with(const char *all, size_t len, const char *what, aw_buf *out)
{
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(all + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - all) + 1 : len;
        if (has(all + i, end - i, what))
            aw_buf_add(out, all + i, end - i);
        i = end;
    }
}

static int secrets_seen, publics_seen, games, live_lines;

static void check_game(const char *preset, int players, uint64_t seed, const char *set1)
{
    char label[128];
    snprintf(label, sizeof label, "%s %d players seed %llu%s%s", preset, players, (unsigned long long)seed,
             set1 ? " " : "", set1 ? set1 : "");
    bool votes = !set1 || !strstr(set1, "false");

    /* With reveal: exactly --events. */
    aw_buf rs;
    aw_buf_init(&rs);
    char *ev = play(preset, players, seed, set1, true, &rs);
    CHECK_MSG(strcmp(rs.data ? rs.data : "", ev) == 0, "%s: the revealed stream is not --events", label);
    free(ev);
    aw_buf_free(&rs);

    /* Without: the public lines, then the full record. */
    aw_buf st;
    aw_buf_init(&st);
    ev = play(preset, players, seed, set1, false, &st);
    size_t evlen = strlen(ev);
    games++;
    const char *res = strstr(st.data, "\"event\":\"result\"");
    CHECK_MSG(res != NULL, "%s: no result line", label);
    if (!res) {
        free(ev);
        aw_buf_free(&st);
        return;
    }
    size_t live_len = (size_t)(strchr(res, '\n') + 1 - st.data);
    const char *after = st.data + live_len;
    CHECK_MSG(strcmp(after, ev) == 0, "%s: after the result, the stream is not the full record", label);

    /* Nothing secret in the live part. */
    for (size_t i = 0; i < live_len;) {
        const char *l = st.data + i;
        size_t n = (size_t)((const char *)memchr(l, '\n', live_len - i) - l) + 1;
        i += n;
        static const char *const never[] = {"\"role\":",
                                            "\"seed\":",
                                            "\"message\":",
                                            "\"us\":",
                                            "\"event\":\"whisper\"",
                                            "\"event\":\"divine\"",
                                            "\"event\":\"guard\"",
                                            "\"event\":\"attackVote\"",
                                            "\"success\":false",
                                            "\"call\":\"WHISPER\"",
                                            "\"call\":\"DIVINE\"",
                                            "\"call\":\"GUARD\"",
                                            "\"call\":\"ATTACK\""};
        for (size_t k = 0; k < sizeof never / sizeof never[0]; k++)
            if (has(l, n, never[k]))
                CHECK_MSG(false, "%s: a live line has %s: %.*s", label, never[k], (int)n - 1, l);
        live_lines++;
        if (!votes && has(l, n, "\"event\":\"vote\""))
            CHECK_MSG(false, "%s: a vote while votes are hidden", label);
        if (has(l, n, "\"event\":\"substitute\""))
            CHECK_MSG(votes && has(l, n, "\"call\":\"VOTE\""), "%s: a substitute for a secret request: %.*s",
                      label, (int)n - 1, l);
        if (!has(l, n, "\"game\":"))
            CHECK_MSG(false, "%s: not an event line: %.*s", label, (int)n - 1, l);
    }
    /* ... and the full record has them (the test sees the secrets it
     * checks for). */
    if (strstr(ev, "\"event\":\"whisper\"") || strstr(ev, "\"event\":\"divine\""))
        secrets_seen++;

    /* Every public line passes, in order. */
    static const char *const pub[] = {"\"event\":\"talk\"", "\"event\":\"vote\"", "\"event\":\"version\"",
                                      "\"success\":true"};
    for (size_t k = 0; k < sizeof pub / sizeof pub[0]; k++) {
        if (!votes && k == 1)
            continue;
        aw_buf a, b;
        aw_buf_init(&a);
        aw_buf_init(&b);
        lines_with(st.data, live_len, pub[k], &a);
        lines_with(ev, evlen, pub[k], &b);
        CHECK_MSG(a.len == b.len && (!a.len || memcmp(a.data, b.data, a.len) == 0), "%s: %s lines differ", label,
                  pub[k]);
        if (a.len)
            publics_seen++;
        aw_buf_free(&a);
        aw_buf_free(&b);
    }
    /* As many status and execute lines as the record, without roles; the
     * begin line names the agents. */
    aw_buf a, b;
    aw_buf_init(&a);
    aw_buf_init(&b);
    lines_with(st.data, live_len, "\"event\":\"status\"", &a);
    lines_with(ev, evlen, "\"event\":\"status\"", &b);
    int na = 0, nb = 0;
    for (size_t i = 0; i < a.len; i++)
        na += a.data[i] == '\n';
    for (size_t i = 0; i < b.len; i++)
        nb += b.data[i] == '\n';
    CHECK_MSG(na == nb && na >= players, "%s: %d status lines live, %d in the record", label, na, nb);
    CHECK_MSG(strncmp(st.data, "{\"game\":", 8) == 0 && strstr(st.data, "\"event\":\"begin\"") < res &&
                  strstr(st.data, "\"name\":") < res,
              "%s: no begin line with names first", label);
    aw_buf_free(&a);
    aw_buf_free(&b);
    free(ev);
    aw_buf_free(&st);
}

int main(void)
{
    const char *presets[] = {"aiwolf", "seed2015", "regulation"};
    for (int pi = 0; pi < 3; pi++)
        for (int players = 5; players <= 15; players += 5)
            for (uint64_t seed = 1; seed <= 8; seed++)
                check_game(presets[pi], players, seed, seed == 3 ? "voteVisible=false" : NULL);
    CHECK(games == 72);
    CHECK(secrets_seen > 30);
    CHECK(publics_seen > 150);
    CHECK(live_lines > 10000);
    printf("%d games, %d live lines checked, %d games with whispers or divinations held back\n", games, live_lines,
           secrets_seen);
    return test_done();
}
