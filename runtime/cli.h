/* cli: the subcommands of the aiwolf binary. Each lives in cmd_<name>.c and
 * returns the process exit status: 0 success, 1 failure of the work itself
 * (an illegal log, an invalid utterance), 2 bad usage or unreadable input. */
#ifndef AW_CLI_H
#define AW_CLI_H

int cmd_play(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_protocol(int argc, char **argv);
int cmd_replay(int argc, char **argv);

#endif
