/* Every line of the JSON events file matches docs/events.schema.json: games
 * of every preset and several sizes between careful, erratic and faulty C
 * players (so that every kind of event occurs, faults and substitutes
 * included), checked line by line with a small validator of the schema
 * keywords the file uses. The validator itself is shown to refuse broken
 * events, so the check can fail. */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <regex.h>
#include <string.h>

#include "cseat.h"
#include "game.h"
#include "test.h"
#include "wrap_seat.h"

/* ---- the validator: type, enum, const, pattern, minimum, maximum, required,
 * properties, additionalProperties, items, oneOf, $ref to #/$defs/... ---- */

static json_t *root;

static bool valid(json_t *schema, json_t *v, char *why, size_t n);

static bool type_ok(const char *t, json_t *v)
{
    if (!strcmp(t, "object"))
        return json_is_object(v);
    if (!strcmp(t, "array"))
        return json_is_array(v);
    if (!strcmp(t, "string"))
        return json_is_string(v);
    if (!strcmp(t, "integer"))
        return json_is_integer(v);
    if (!strcmp(t, "number"))
        return json_is_number(v);
    if (!strcmp(t, "boolean"))
        return json_is_boolean(v);
    if (!strcmp(t, "null"))
        return json_is_null(v);
    return false;
}

static bool fail(char *why, size_t n, const char *fmt, const char *a, const char *b)
{
    snprintf(why, n, fmt, a, b);
    return false;
}

static bool valid(json_t *schema, json_t *v, char *why, size_t n)
{
    const char *key;
    json_t *val;
    json_object_foreach(schema, key, val)
    {
        if (!strcmp(key, "$ref")) {
            const char *ref = json_string_value(val);
            if (!ref || strncmp(ref, "#/$defs/", 8) != 0)
                return fail(why, n, "unsupported $ref %s%s", ref ? ref : "?", "");
            json_t *target = json_object_get(json_object_get(root, "$defs"), ref + 8);
            if (!target)
                return fail(why, n, "no definition %s%s", ref, "");
            if (!valid(target, v, why, n))
                return false;
        } else if (!strcmp(key, "type")) {
            if (!type_ok(json_string_value(val), v))
                return fail(why, n, "not of type %s%s", json_string_value(val), "");
        } else if (!strcmp(key, "enum")) {
            size_t i;
            json_t *e;
            bool found = false;
            json_array_foreach(val, i, e)
            {
                found |= json_equal(e, v);
            }
            if (!found)
                return fail(why, n, "not one of the allowed values%s%s", "", "");
        } else if (!strcmp(key, "const")) {
            if (!json_equal(val, v))
                return fail(why, n, "not the value %s%s", json_string_value(val) ? json_string_value(val) : "?", "");
        } else if (!strcmp(key, "pattern")) {
            regex_t re;
            if (regcomp(&re, json_string_value(val), REG_EXTENDED | REG_NOSUB) != 0)
                return fail(why, n, "bad pattern %s%s", json_string_value(val), "");
            bool ok = !json_is_string(v) || regexec(&re, json_string_value(v), 0, NULL, 0) == 0;
            regfree(&re);
            if (!ok)
                return fail(why, n, "not matching %s: %s", json_string_value(val), json_string_value(v));
        } else if (!strcmp(key, "minimum")) {
            if (json_is_number(v) && json_number_value(v) < json_number_value(val))
                return fail(why, n, "below the minimum%s%s", "", "");
        } else if (!strcmp(key, "maximum")) {
            if (json_is_number(v) && json_number_value(v) > json_number_value(val))
                return fail(why, n, "above the maximum%s%s", "", "");
        } else if (!strcmp(key, "required")) {
            size_t i;
            json_t *e;
            json_array_foreach(val, i, e)
            {
                if (json_is_object(v) && !json_object_get(v, json_string_value(e)))
                    return fail(why, n, "missing field %s%s", json_string_value(e), "");
            }
        } else if (!strcmp(key, "properties")) {
            const char *pk;
            json_t *ps;
            json_object_foreach(val, pk, ps)
            {
                json_t *pv = json_is_object(v) ? json_object_get(v, pk) : NULL;
                char sub[400];
                if (pv && !valid(ps, pv, sub, sizeof sub))
                    return fail(why, n, "field %s: %s", pk, sub);
            }
        } else if (!strcmp(key, "additionalProperties")) {
            if (json_is_false(val) && json_is_object(v)) {
                json_t *props = json_object_get(schema, "properties");
                const char *vk;
                json_t *vv;
                json_object_foreach(v, vk, vv)
                {
                    if (!json_object_get(props, vk))
                        return fail(why, n, "unexpected field %s%s", vk, "");
                }
            }
        } else if (!strcmp(key, "items")) {
            size_t i;
            json_t *e;
            if (json_is_array(v))
                json_array_foreach(v, i, e)
                {
                    char sub[400];
                    if (!valid(val, e, sub, sizeof sub))
                        return fail(why, n, "an item: %s%s", sub, "");
                }
        } else if (!strcmp(key, "oneOf")) {
            size_t i, matches = 0;
            json_t *e;
            char sub[400] = "", best[400] = "";
            const char *ev = json_is_object(v) ? json_string_value(json_object_get(v, "event")) : NULL;
            json_array_foreach(val, i, e)
            {
                const char *ref = json_string_value(json_object_get(e, "$ref"));
                if (valid(e, v, sub, sizeof sub))
                    matches++;
                else if (ev && ref && strlen(ref) > 8 && !strcmp(ref + 8, ev))
                    snprintf(best, sizeof best, "%s", sub); /* why the event's own kind did not match */
            }
            if (matches != 1)
                return fail(why, n, matches ? "matches %s kinds%s" : "matches no kind: %s%s",
                            matches ? "several" : best, "");
        } else if (strcmp(key, "description") && strcmp(key, "title") && strcmp(key, "$schema") &&
                   strcmp(key, "$id") && strcmp(key, "$defs")) {
            return fail(why, n, "the schema uses %s, which this validator does not know%s", key, "");
        }
    }
    return true;
}

/* ---- games -------------------------------------------------------------- */

/* A careful or erratic C player that also fails every seventh call in turn
 * with each kind of fault, and names its version. */
static int f_request(wrap_seat *w, aw_req_kind kind, const aw_info *info, const aw_settings *set, aw_seat_reply *r,
                     aw_seat_fault *f)
{
    if (w->calls % 7 == 0) {
        static const aw_fault_kind kinds[] = {AW_FAULT_ERROR, AW_FAULT_TIMEOUT, AW_FAULT_MEMORY, AW_FAULT_REPLY,
                                                   AW_FAULT_LOST};
        return wrap_fault(f, kinds[(w->calls / 7) % 5], "fault \"%d\"\n\x01 \xff", w->calls);
    }
    return wrap_pass(w, kind, info, set, r, f);
}

static const char *kinds_seen[32];
static int nkinds;

static void note_kind(const char *k)
{
    for (int i = 0; i < nkinds; i++)
        if (!strcmp(kinds_seen[i], k))
            return;
    if (nkinds < 32)
        kinds_seen[nkinds++] = strdup(k);
}

int main(void)
{
    json_error_t je;
    root = json_load_file("docs/events.schema.json", 0, &je);
    CHECK_MSG(root != NULL, "docs/events.schema.json: %s (line %d)", je.text, je.line);
    if (!root)
        return test_done();

    const char *presets[] = {"aiwolf", "seed2015", "regulation"};
    const int sizes[] = {5, 9, 15};
    long lines = 0, bad = 0, faults = 0;
    for (int pi = 0; pi < 3; pi++)
        for (int si = 0; si < 3; si++)
            for (uint64_t seed = 1; seed <= 3; seed++) {
                aw_settings set;
                CHECK(aw_settings_preset(&set, presets[pi], sizes[si], NULL) == 0);
                /* an error ratio: the seats' lost calls end these games,
                 * abandoned (error events, a result with abandoned) */
                if (pi == 0 && seed == 3)
                    set.error_ratio = 250;
                aw_seat *seats[AW_MAX_PLAYERS + 1];
                for (int a = 1; a <= set.players; a++) {
                    aw_seat *inner =
                        a % 3 == 0 ? aw_cseat_random(seed + (uint64_t)a) : aw_cseat_chaos(seed * 5 + (uint64_t)a);
                    if (a % 2) {
                        wrap_seat *x = wrap_seat_new(sizeof *x, inner, f_request);
                        wrap_seat_set_version(x, "v1 \"quoted\"");
                        inner = &x->base;
                    }
                    seats[a] = inner;
                }
                char *buf = NULL;
                size_t len = 0;
                FILE *ev = open_memstream(&buf, &len);
                aw_gamelog log;
                aw_gamelog_init(&log, NULL, NULL, ev);
                aw_game_opts go;
                memset(&go, 0, sizeof go);
                go.settings = &set;
                go.seed = seed;
                go.log = &log;
                go.game_no = (int)seed;
                aw_game_result res;
                aw_error err;
                CHECK(aw_game_play(&go, seats, &res, &err) == 0);
                faults += res.faults;
                aw_gamelog_free(&log);
                fclose(ev);
                for (int a = 1; a <= set.players; a++)
                    seats[a]->ops->free(seats[a]);
                for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
                    lines++;
                    json_t *v = json_loads(line, 0, &je);
                    char why[512] = "";
                    if (!v || !valid(root, v, why, sizeof why)) {
                        if (bad++ < 10)
                            fprintf(stderr, "%s\n  does not match the schema: %s\n", line, v ? why : je.text);
                    } else {
                        note_kind(json_string_value(json_object_get(v, "event")));
                    }
                    json_decref(v);
                }
                free(buf);
            }
    CHECK_MSG(bad == 0, "%ld of %ld event lines do not match docs/events.schema.json", bad, lines);
    CHECK(faults > 0);
    /* Every kind of event the schema describes occurred. */
    size_t i;
    json_t *kind;
    json_array_foreach(json_object_get(root, "oneOf"), i, kind)
    {
        const char *name = json_string_value(json_object_get(kind, "$ref")) + 8;
        bool seen = false;
        for (int k = 0; k < nkinds; k++)
            seen |= !strcmp(kinds_seen[k], name);
        CHECK_MSG(seen, "no event of kind %s in the games", name);
    }

    /* The validator refuses what breaks the schema. */
    const char *broken[] = {
        "{\"game\":0,\"day\":1,\"event\":\"vote\",\"agent\":1,\"target\":2}",             /* no round */
        "{\"game\":0,\"day\":1,\"event\":\"vote\",\"agent\":1,\"target\":2,\"round\":0,\"x\":1}", /* extra field */
        "{\"game\":0,\"day\":1,\"event\":\"execute\",\"agent\":1,\"role\":\"KING\"}",      /* no such role */
        "{\"game\":0,\"day\":1,\"event\":\"talk\",\"idx\":0,\"turn\":0,\"agent\":1,\"text\":3}", /* text a number */
        "{\"game\":0,\"day\":-1,\"event\":\"attack\",\"target\":2,\"success\":true}",     /* negative day */
        "{\"game\":0,\"day\":1,\"event\":\"dance\"}",                                       /* no such kind */
        "{\"game\":0,\"day\":1,\"event\":\"call\",\"agent\":1,\"call\":\"TALK\",\"us\":5,\"fault\":\"oops\"}",
    };
    for (size_t b = 0; b < sizeof broken / sizeof broken[0]; b++) {
        json_t *v = json_loads(broken[b], 0, &je);
        char why[512];
        CHECK_MSG(v && !valid(root, v, why, sizeof why), "accepted: %s", broken[b]);
        json_decref(v);
    }
    printf("events: %ld lines of 27 games match docs/events.schema.json (%d kinds)\n", lines, nkinds);
    for (int k = 0; k < nkinds; k++)
        free((void *)kinds_seen[k]);
    json_decref(root);
    return test_done();
}
