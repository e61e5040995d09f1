/* roles: the descriptor table, made from roles.def. Uses nothing. */
#include "roles.h"

#include <stdio.h>
#include <string.h>

#define NIGHT_NONE AW_NIGHT_NONE
#define NIGHT_DIVINE AW_NIGHT_DIVINE
#define NIGHT_GUARD AW_NIGHT_GUARD
#define NIGHT_ATTACK AW_NIGHT_ATTACK
static const aw_role_info role_table[AW_NROLES] = {
#define AW_ROLE(id, nm, tm, sp, wf, nt, fl, md, sup, e, j)                                                    \
    {.name = nm, .team = AW_TEAM_##tm, .species = AW_##sp, .wolf = wf, .night = NIGHT_##nt, .fellows = fl,   \
     .medium = md, .supported = sup, .en = e, .ja = j},
#include "roles.def"
#undef AW_ROLE
};

static const aw_role_info no_role = {.name = "NONE", .team = AW_TEAM_NONE, .species = AW_HUMAN, .en = "?", .ja = "?"};

const aw_role_info *aw_role_info_of(aw_role r)
{
    return r >= 0 && r < AW_NROLES ? &role_table[r] : &no_role;
}

const char *aw_role_name(aw_role r)
{
    return aw_role_info_of(r)->name;
}

aw_role aw_role_parse(const char *s)
{
    for (int r = 0; r < AW_NROLES; r++)
        if (strcmp(s, role_table[r].name) == 0)
            return (aw_role)r;
    return AW_ROLE_NONE;
}

aw_species aw_role_species(aw_role r)
{
    return aw_role_info_of(r)->species;
}

aw_team aw_role_team(aw_role r)
{
    return aw_role_info_of(r)->team;
}

bool aw_role_is_wolf(aw_role r)
{
    return aw_role_info_of(r)->wolf;
}

aw_team aw_winner(int humans, int wolves)
{
    if (wolves == 0)
        return AW_TEAM_VILLAGER;
    if (humans <= wolves)
        return AW_TEAM_WEREWOLF;
    return AW_TEAM_NONE;
}

const char *aw_species_name(aw_species s)
{
    return s == AW_WOLF ? "WEREWOLF" : "HUMAN";
}

const char *aw_team_name(aw_team t)
{
    switch (t) {
    case AW_TEAM_VILLAGER:
        return "VILLAGER";
    case AW_TEAM_WEREWOLF:
        return "WEREWOLF";
    case AW_TEAM_OTHERS:
        return "OTHERS";
    default:
        return "NONE";
    }
}

void aw_roles_by_name(aw_role out[AW_NROLES])
{
    /* insertion sort: a handful of roles */
    for (int r = 0; r < AW_NROLES; r++) {
        int i = r;
        while (i > 0 && strcmp(role_table[out[i - 1]].name, role_table[r].name) > 0) {
            out[i] = out[i - 1];
            i--;
        }
        out[i] = (aw_role)r;
    }
}

void aw_role_list(char *buf, unsigned size, const char *sep, bool supported_only)
{
    size_t used = 0;
    if (!size)
        return;
    buf[0] = '\0';
    for (int r = 0; r < AW_NROLES && used + 1 < size; r++) {
        if (supported_only && !role_table[r].supported)
            continue;
        int k = snprintf(buf + used, size - used, "%s%s", used ? sep : "", role_table[r].name);
        if (k < 0)
            break;
        used += (size_t)k;
    }
}
