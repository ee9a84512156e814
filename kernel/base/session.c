// SPDX-License-Identifier: GPL-2.0
/*
 * The tracing sessions' state: the structs vmt_session the probes read
 * (through the accessors of session.h), the check of their settings, and
 * which session traces a task: the table of each one's traced processes
 * (its configured pids, then the children it follows), which the probes
 * look a task up in without a lock. System-wide, every user process but
 * the collector is traced and the table is not used. Their lifecycle
 * (configure, start, stop) is core.c's.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>

#include "base/session.h"

#define VMT_SESSION_INIT(i) {							\
	.lock = __MUTEX_INITIALIZER(vmt_sessions[i].lock),			\
	.id = i,								\
	.state = VMT_STATE_OFF,							\
	.tgids_lock = __RAW_SPIN_LOCK_UNLOCKED(vmt_sessions[i].tgids_lock),	\
}

struct vmt_session vmt_sessions[VMT_MAX_SESSIONS] = {
	VMT_SESSION_INIT(0), VMT_SESSION_INIT(1), VMT_SESSION_INIT(2), VMT_SESSION_INIT(3),
};

static_assert(VMT_MAX_SESSIONS == 4, "one initializer a session");

/*
 * Serializes choosing a session for a collector (its owner) and starting
 * one, so that a session that must run alone and the others never trace
 * at once. Taken before a session's lock.
 */
DEFINE_MUTEX(vmt_sessions_lock);

/**
 * vmt_settings_check() - validate settings without applying them
 * @settings:	the settings; a ring_records of 0 means the default
 *
 * Return: 0 or -EINVAL.
 */
int vmt_settings_check(const struct vmt_settings *settings)
{
	u32 n = settings->ring_records;
	u32 i;

	/* At least a page of records, so that rings stay page-aligned. */
	if (n && (n < PAGE_SIZE / VMT_RECORD_SIZE || n > VMT_MAX_RING_RECORDS ||
		  !is_power_of_2(n)))
		return -EINVAL;
	if (settings->flags & ~VMT_CONFIG_FLAGS || settings->events & ~VMT_EVENTS)
		return -EINVAL;
	/*
	 * Pairs are kept per traced address space: there are such only with
	 * protect; the kernel says when they go through MMU notifiers.
	 */
	if ((settings->events & VMT_EVENT_PAGEMAP) &&
	    (!(settings->flags & VMT_CONFIG_PROTECT) || !IS_ENABLED(CONFIG_MMU_NOTIFIER)))
		return -EINVAL;
	if (settings->flags & VMT_CONFIG_PROTECT) {
		if (settings->enabled_pages > VMT_MAX_ENABLED_PAGES ||
		    settings->policy > VMT_POLICY_CLOCK ||
		    settings->reprotect_ms > VMT_MAX_REPROTECT_MS)
			return -EINVAL;
	} else if (settings->enabled_pages || settings->policy || settings->reprotect_ms) {
		return -EINVAL;
	}
	/* System-wide follows every new process already. */
	if (settings->flags & VMT_CONFIG_SYSTEM_WIDE)
		return settings->nr_pids || (settings->flags & VMT_CONFIG_FOLLOW) ? -EINVAL : 0;
	if (!settings->nr_pids || settings->nr_pids > VMT_MAX_PIDS)
		return -EINVAL;
	for (i = 0; i < settings->nr_pids; i++)
		if (settings->pids[i] <= 0)
			return -EINVAL;
	return 0;
}

/**
 * vmt_settings_alone() - whether a session of @settings must run alone
 * @settings:	checked settings
 *
 * Page protection (exact mode with it) keeps one table of targets for the
 * whole kernel; system-wide tracing takes every process; DMA mappings and
 * every context switch are no process's events. Such a session is session
 * 0, and no other traces while it does.
 */
bool vmt_settings_alone(const struct vmt_settings *settings)
{
	return (settings->flags & (VMT_CONFIG_PROTECT | VMT_CONFIG_SYSTEM_WIDE)) ||
	       (settings->events & (VMT_EVENT_DMA | VMT_EVENT_SWITCH_ALL | VMT_EVENT_PAGEMAP));
}

/**
 * vmt_session_of_process() - the session tracing @task's process, by its
 * thread group id alone
 * @task:	a user task, which may have let go of its address space (exiting)
 *
 * A process two sessions were asked to trace is the first one's.
 *
 * Context: any; lockless.
 * Return: the session, or NULL.
 */
struct vmt_session *vmt_session_of_process(struct task_struct *task)
{
	pid_t tgid = task_tgid_nr(task);
	struct vmt_session *s;
	u32 i, n;
	int k;

	if (task->flags & PF_KTHREAD)
		return NULL;
	for (k = 0; k < VMT_MAX_SESSIONS; k++) {
		s = &vmt_sessions[k];
		if (!vmt_session_is_tracing(s))
			continue;
		if (s->settings.flags & VMT_CONFIG_SYSTEM_WIDE)
			return tgid != s->exclude_tgid ? s : NULL;
		/* Pairs with vmt_session_follow()'s release; start's came with ->tracing. */
		n = smp_load_acquire(&s->nr_tgids);
		for (i = 0; i < n; i++)
			if (READ_ONCE(s->tgids[i]) == tgid)
				return s;
	}
	return NULL;
}

/**
 * vmt_session_of() - the session tracing @task's references
 * @task:	a task
 *
 * System-wide, every user task is traced, but those in the address space
 * of the process that started tracing; otherwise the traced processes'
 * tasks.
 *
 * Context: any; lockless.
 * Return: the session, or NULL.
 */
struct vmt_session *vmt_session_of(struct task_struct *task)
{
	struct vmt_session *s = &vmt_sessions[0];

	if (!task->mm || (task->flags & PF_KTHREAD))
		return NULL;
	/* System-wide runs alone, as session 0. */
	if (vmt_session_is_tracing(s) && (s->settings.flags & VMT_CONFIG_SYSTEM_WIDE))
		return task->mm != s->exclude_mm ? s : NULL;
	return vmt_session_of_process(task);
}

/**
 * vmt_session_follow() - make a new child of a process @s traces traced
 * @s:		the parent's session
 * @child:	the child, not running yet
 *
 * Context: the fork probe; may not sleep.
 */
void vmt_session_follow(struct vmt_session *s, struct task_struct *child)
{
	unsigned long flags;
	u32 i;

	raw_spin_lock_irqsave(&s->tgids_lock, flags);
	/* The entry of a process that exited is taken again first. */
	for (i = 0; i < s->nr_tgids; i++) {
		if (!s->tgids[i]) {
			WRITE_ONCE(s->tgids[i], task_tgid_nr(child));
			goto out_unlock;
		}
	}
	if (s->nr_tgids < VMT_MAX_TARGETS) {
		s->tgids[s->nr_tgids] = task_tgid_nr(child);
		/* Publish to vmt_session_of_process(): the entry first. */
		smp_store_release(&s->nr_tgids, s->nr_tgids + 1);
	} else {
		atomic64_inc(&s->missed);
	}
out_unlock:
	raw_spin_unlock_irqrestore(&s->tgids_lock, flags);
}

/**
 * vmt_session_unfollow() - a process is gone: its entry in any session is
 * free, and a new process that gets its pid is not traced
 * @tgid:	the process
 *
 * Context: the task-free probe (RCU); may not sleep.
 */
void vmt_session_unfollow(pid_t tgid)
{
	struct vmt_session *s;
	unsigned long flags;
	u32 i;
	int k;

	for (k = 0; k < VMT_MAX_SESSIONS; k++) {
		s = &vmt_sessions[k];
		if (!vmt_session_is_tracing(s) || (s->settings.flags & VMT_CONFIG_SYSTEM_WIDE))
			continue;
		raw_spin_lock_irqsave(&s->tgids_lock, flags);
		for (i = 0; i < s->nr_tgids; i++) {
			if (s->tgids[i] == tgid) {
				WRITE_ONCE(s->tgids[i], 0);
				break;
			}
		}
		raw_spin_unlock_irqrestore(&s->tgids_lock, flags);
	}
}

/**
 * vmt_session_tgids_prepare() - the traced processes of @s, before its
 * probes act; system-wide, the collector to leave out
 * @s:		the session, its settings set
 *
 * Context: start, @s's lock held, @s off.
 */
void vmt_session_tgids_prepare(struct vmt_session *s)
{
	const struct vmt_settings *settings = &s->settings;

	atomic64_set(&s->missed, 0);
	atomic64_set(&s->dropped, 0);
	atomic64_set(&s->events_missed, 0);
	memcpy(s->tgids, settings->pids, settings->nr_pids * sizeof(pid_t));
	s->nr_tgids = settings->nr_pids;
	if (settings->flags & VMT_CONFIG_SYSTEM_WIDE) {
		s->exclude_mm = current->mm;
		s->exclude_tgid = task_tgid_nr(current);
		mmgrab(s->exclude_mm);
	}
}

/**
 * vmt_session_tgids_release() - once @s's probes are quiet: forget the
 * collector's address space
 * @s:		the session
 */
void vmt_session_tgids_release(struct vmt_session *s)
{
	if (s->exclude_mm)
		mmdrop(s->exclude_mm);
	s->exclude_mm = NULL;
}
