/* SPDX-License-Identifier: GPL-2.0 */
/* commands.h - one entry point per subcommand; each returns the exit code. */
#ifndef __FP_COMMANDS_H
#define __FP_COMMANDS_H

int cmd_replay(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_nic(int argc, char **argv);

#endif /* __FP_COMMANDS_H */
