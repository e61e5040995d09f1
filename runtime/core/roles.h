/* roles: the role enum and one descriptor per role (roles.def), the only
 * place that says what a role is. Everything per role elsewhere (the night
 * a role has, what its view holds, who counts as a werewolf, the names on
 * the wire) reads these descriptors. Uses nothing. */
#ifndef AW_ROLES_H
#define AW_ROLES_H

#include <stdbool.h>

/* Roles in the official enum order (the order roles are dealt in). */
typedef enum aw_role {
    AW_ROLE_NONE = -1,
#define AW_ROLE(id, name, team, species, wolf, night, fellows, medium, supported, en, ja) AW_##id,
#include "roles.def"
#undef AW_ROLE
    AW_NROLES
} aw_role;

typedef enum aw_species { AW_HUMAN = 0, AW_WOLF = 1 } aw_species;
typedef enum aw_team { AW_TEAM_NONE = -1, AW_TEAM_VILLAGER = 0, AW_TEAM_WEREWOLF, AW_TEAM_OTHERS } aw_team;

/* What a role is asked at night. The engine has one phase per kind; a new
 * role of an existing kind needs no engine change. */
typedef enum aw_night_action {
    AW_NIGHT_NONE,   /* sleeps */
    AW_NIGHT_DIVINE, /* divines one agent and learns its species (seer) */
    AW_NIGHT_GUARD,  /* guards one other agent from the attack (bodyguard) */
    AW_NIGHT_ATTACK  /* votes on the attack with the other werewolves */
} aw_night_action;

typedef struct aw_role_info {
    const char *name;      /* "SEER": upper case, as on the wire and in logs */
    aw_team team;          /* the team that wins with it */
    aw_species species;    /* what a divination or a medium's result shows */
    bool wolf;             /* counts as a werewolf (win conditions, whispers, attack votes) */
    aw_night_action night; /* what it is asked at night */
    bool fellows;          /* holders see each other's role */
    bool medium;           /* learns the species of the agent executed the day before */
    bool supported;        /* the engine and the log checker can play it */
    const char *en, *ja;   /* a holder described in a sentence: "a seer", "占い師" */
} aw_role_info;

/* The descriptor of r; for AW_ROLE_NONE or anything out of range, a
 * descriptor named "NONE" on no team that does nothing. Never NULL. */
const aw_role_info *aw_role_info_of(aw_role r);

const char *aw_role_name(aw_role r);          /* "SEER"; "NONE" for AW_ROLE_NONE */
aw_role aw_role_parse(const char *s);          /* exact upper-case name, or AW_ROLE_NONE */
aw_species aw_role_species(aw_role r);
aw_team aw_role_team(aw_role r);
bool aw_role_is_wolf(aw_role r);               /* counts as a werewolf */
/* The win rule: the team that has won with these living humans (every
 * agent that does not count as a werewolf) and werewolves — VILLAGER when
 * no werewolf lives, WEREWOLF when the werewolves are at least as many as
 * the humans — or AW_TEAM_NONE while the game goes on. The engine ends its
 * games by it and the log checker checks their results by it. */
aw_team aw_winner(int humans, int wolves);
const char *aw_species_name(aw_species s);    /* "HUMAN" / "WEREWOLF" */
const char *aw_team_name(aw_team t);          /* "VILLAGER" / "WEREWOLF" / "OTHERS" */

/* Every role sorted by name (the order of the official existingRoleList):
 * fills out[0..AW_NROLES). */
void aw_roles_by_name(aw_role out[AW_NROLES]);

/* Writes the role names in enum order (only the supported ones when
 * supported_only), separated by sep, into buf (for messages that list the
 * roles); truncates to size. */
void aw_role_list(char *buf, unsigned size, const char *sep, bool supported_only);

#endif
