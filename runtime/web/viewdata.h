/* viewdata: game files turned into the JSON the browser pages read. The
 * pages' common language is the event objects of docs/events.schema.json
 * (what `aiwolf play --events` writes, and what a live game streams); talk
 * and whisper objects may carry "en" and "ja": the utterance described as a
 * sentence (aw_protocol_describe), absent when the text is not valid
 * protocol. Uses log (logline, gzlog), core (protocol) and util.
 *
 * Files are untrusted: whatever they hold, the result is valid JSON, with
 * the problems in it; nothing here fails otherwise. Ownership: out is the
 * caller's; paths are borrowed. */
#ifndef AW_VIEWDATA_H
#define AW_VIEWDATA_H

#include <stddef.h>

#include <stdbool.h>

#include "util.h"

/* The largest file read (after gunzip). */
#define AW_VIEW_MAX_FILE (64u * 1024 * 1024)

/* Appends `,"en":"…","ja":"…"` for the utterance text[0..len) by speaker
 * (an agent number), or nothing when it is not valid protocol (lenient). */
void aw_view_describe(aw_buf *out, const char *text, size_t len, int speaker);

/* For an events line line[0..n) (one JSON object) that is a talk or a
 * whisper: appends aw_view_describe's fields for its text and agent and
 * returns true; else false, nothing appended. */
bool aw_view_event_said(const char *line, size_t n, aw_buf *out);

/* Appends one JSON object for the game file at path, named name:
 *   {"name":…, "source":"log", "events":[…], "problems":[{"line":N,"why":…}]}
 * for a game log (the official CSV format, or .gz of it): each line as its
 * event object (a "begin" made from the day-0 status lines; vote rounds
 * counted where a voter votes again the same day), lines that do not parse
 * listed in problems;
 *   {"name":…, "source":"events", "jsonl":"…", "said":{"LINE":{"en":…,"ja":…}}}
 * for an events file (JSON lines, docs/events.schema.json): the text as it is
 * (the page parses each line; a bad line is shown, not fatal) and the talk
 * descriptions by line number (from 0);
 *   {"name":…, "error":"…"} when the file cannot be read. */
void aw_view_game_json(const char *path, const char *name, aw_buf *out);

/* Appends `,"faults":[…]` for a contest game's faults file (logs/N.faults:
 * per line "Agent[NN]<TAB>entry<TAB>request<TAB>kind<TAB>message", see
 * docs/contest.md): {"agent":N,"entry":…,"request":…,"kind":…,"message":…}
 * for each of its first AW_VIEW_MAX_FAULTS lines (a line of another shape:
 * agent 0 and the line as the message); `,"faults":[]` when there is no
 * file (a game without faults). */
#define AW_VIEW_MAX_FAULTS 1000
void aw_view_faults_json(const char *path, aw_buf *out);

/* Reads the file at path (gunzipping .gz data), at most AW_VIEW_MAX_FILE
 * bytes; NULL with err filled otherwise. Free with free(). */
char *aw_view_read(const char *path, size_t *len, aw_error *err);

#endif
