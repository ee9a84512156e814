// SPDX-License-Identifier: GPL-2.0
/*
 * The tracing session's state: the one struct vmt_session the probes read
 * (through the accessors of session.h) and the check of its settings. Its
 * lifecycle (configure, start, stop) is core.c's.
 */
#include <linux/log2.h>
#include <linux/mm.h>

#include "base/session.h"

struct vmt_session vmt_session = {
	.lock = __MUTEX_INITIALIZER(vmt_session.lock),
	.state = VMT_STATE_OFF,
};

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
