/* nlprules: what the NLP division's rules (aiwolfdial's aiwolf-nlp-server)
 * add to a game: the characters' names the agents know each other by
 * ("Minato", "ミナト"), and the length rule that cuts a free-text talk:
 * at most talk_length characters before its first "@Name" mention of
 * another agent, at most mention_length after it (spaces not counted, as
 * the official server's default count_spaces=false). Pure functions; the
 * engine applies the cut to every talk and whisper (settings.h:
 * talk_length, mention_length, character_names), the NLP codec names the
 * agents. Uses settings and util.
 *
 * Ownership: names are static strings. */
#ifndef AW_NLPRULES_H
#define AW_NLPRULES_H

#include <stdbool.h>
#include <stddef.h>

#include "settings.h"
#include "util.h"

/* The name agent a (1..AW_MAX_PLAYERS) goes by under the settings'
 * character_names: the official server's profiles in their order (agent 1
 * is the first profile), or NULL when the settings name no characters. */
const char *aw_nlp_character(const aw_settings *s, int agent);

/* The agent whose character name is name[0..len) in a game of n players
 * under s, or 0. "Agent[NN]" is accepted too. */
int aw_nlp_agent_of(const aw_settings *s, int n, const char *name, size_t len);

/* Applies the length rule of s to talk text[0..len) of agent `speaker` in
 * a game of n players: appends what is kept to out and returns true when
 * something was cut (out then differs from the text). With no limits set
 * (talk_length and mention_length 0) out is the text. Cutting a text that
 * was cut gives it back unchanged. Counts UTF-8 characters; spaces (ASCII
 * space, tab and U+3000) are not counted but kept. */
bool aw_nlp_cut(const aw_settings *s, int n, int speaker, const char *text, size_t len, aw_buf *out);

#endif
