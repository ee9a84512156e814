// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/vmtrace: one value per file (docs/ABI/sysfs-kernel-vmtrace),
 * of session 0 (the one a collector takes when no other holds it).
 * Settings are staged in their own files and applied through `state`, as in
 * DAMON: writing "on" applies them and starts tracing, "commit" applies them
 * only, "off" stops.
 */
#include <linux/bits.h>
#include <linux/kobject.h>
#include <linux/kstrtox.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include <uapi/linux/vmtrace.h>

#include "core.h"
#include "sysfs.h"

static DEFINE_MUTEX(vmt_staged_lock);
static struct vmt_settings vmt_staged = {	/* under vmt_staged_lock */
	.enabled_pages = VMT_DEFAULT_ENABLED_PAGES,
};

static struct kobject *vmt_kobj;

static ssize_t abi_version_show(struct kobject *kobj, struct kobj_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, "%u\n", VMT_ABI_VERSION);
}

static ssize_t state_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  vmt_session_on(vmt_session_default()) ? "on" : "off");
}

static int vmt_apply_staged(void)
{
	struct vmt_settings next;

	mutex_lock(&vmt_staged_lock);
	next = vmt_staged;
	mutex_unlock(&vmt_staged_lock);
	/* The enabled-set files stay as written, but only matter with protect. */
	if (!(next.flags & VMT_CONFIG_PROTECT)) {
		next.enabled_pages = 0;
		next.policy = 0;
		next.reprotect_ms = 0;
	}
	return vmt_session_configure(vmt_session_default(), &next);
}

static ssize_t state_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	int err;

	if (sysfs_streq(buf, "on")) {
		err = vmt_apply_staged();
		if (!err)
			err = vmt_session_start(vmt_session_default());
	} else if (sysfs_streq(buf, "off")) {
		err = vmt_session_stop(vmt_session_default());
	} else if (sysfs_streq(buf, "commit")) {
		err = vmt_apply_staged();
	} else {
		err = -EINVAL;
	}
	return err ? err : count;
}

static ssize_t ring_records_show(struct kobject *kobj, struct kobj_attribute *attr,
				 char *buf)
{
	u32 n;

	mutex_lock(&vmt_staged_lock);
	n = vmt_staged.ring_records ?: VMT_DEFAULT_RING_RECORDS;
	mutex_unlock(&vmt_staged_lock);
	return sysfs_emit(buf, "%u\n", n);
}

static ssize_t ring_records_store(struct kobject *kobj, struct kobj_attribute *attr,
				  const char *buf, size_t count)
{
	struct vmt_settings check = {};
	u32 n;
	int err;

	err = kstrtou32(buf, 0, &n);
	if (err)
		return err;
	check.ring_records = n;
	check.flags = VMT_CONFIG_SYSTEM_WIDE;
	if (vmt_session_check(&check))
		return -EINVAL;
	mutex_lock(&vmt_staged_lock);
	vmt_staged.ring_records = n;
	mutex_unlock(&vmt_staged_lock);
	return count;
}

static ssize_t vmt_flag_show(char *buf, u32 flag)
{
	bool on;

	mutex_lock(&vmt_staged_lock);
	on = vmt_staged.flags & flag;
	mutex_unlock(&vmt_staged_lock);
	return sysfs_emit(buf, "%d\n", on);
}

static ssize_t vmt_flag_store(const char *buf, size_t count, u32 flag)
{
	bool on;
	int err;

	err = kstrtobool(buf, &on);
	if (err)
		return err;
	mutex_lock(&vmt_staged_lock);
	if (on)
		vmt_staged.flags |= flag;
	else
		vmt_staged.flags &= ~flag;
	mutex_unlock(&vmt_staged_lock);
	return count;
}

static ssize_t overwrite_show(struct kobject *kobj, struct kobj_attribute *attr,
			      char *buf)
{
	return vmt_flag_show(buf, VMT_CONFIG_OVERWRITE);
}

static ssize_t overwrite_store(struct kobject *kobj, struct kobj_attribute *attr,
			       const char *buf, size_t count)
{
	return vmt_flag_store(buf, count, VMT_CONFIG_OVERWRITE);
}

static ssize_t follow_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return vmt_flag_show(buf, VMT_CONFIG_FOLLOW);
}

static ssize_t follow_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	return vmt_flag_store(buf, count, VMT_CONFIG_FOLLOW);
}

static ssize_t protect_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return vmt_flag_show(buf, VMT_CONFIG_PROTECT);
}

static ssize_t protect_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	return vmt_flag_store(buf, count, VMT_CONFIG_PROTECT);
}

/* A u32 setting, checked with vmt_session_check() as protect would use it. */
static ssize_t vmt_u32_store(const char *buf, size_t count, size_t offset)
{
	struct vmt_settings check = { .flags = VMT_CONFIG_PROTECT, .nr_pids = 1,
				      .pids = { 1 } };
	u32 n;
	int err;

	err = kstrtou32(buf, 0, &n);
	if (err)
		return err;
	*(u32 *)((char *)&check + offset) = n;
	if (vmt_session_check(&check))
		return -EINVAL;
	mutex_lock(&vmt_staged_lock);
	*(u32 *)((char *)&vmt_staged + offset) = n;
	mutex_unlock(&vmt_staged_lock);
	return count;
}

static ssize_t vmt_u32_show(char *buf, size_t offset)
{
	u32 n;

	mutex_lock(&vmt_staged_lock);
	n = *(u32 *)((char *)&vmt_staged + offset);
	mutex_unlock(&vmt_staged_lock);
	return sysfs_emit(buf, "%u\n", n);
}

#define VMT_U32_SETTING_ATTR(field)						\
static ssize_t field##_show(struct kobject *kobj, struct kobj_attribute *attr,	\
			    char *buf)						\
{										\
	return vmt_u32_show(buf, offsetof(struct vmt_settings, field));		\
}										\
static ssize_t field##_store(struct kobject *kobj, struct kobj_attribute *attr,	\
			     const char *buf, size_t count)			\
{										\
	return vmt_u32_store(buf, count, offsetof(struct vmt_settings, field));	\
}										\
static struct kobj_attribute vmt_##field##_attr = __ATTR_RW(field)

VMT_U32_SETTING_ATTR(enabled_pages);
VMT_U32_SETTING_ATTR(reprotect_ms);

static const char * const vmt_policy_names[] = {
	[VMT_POLICY_FIFO] = "fifo",
	[VMT_POLICY_CLOCK] = "clock",
};

static ssize_t policy_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	u32 policy;

	mutex_lock(&vmt_staged_lock);
	policy = vmt_staged.policy;
	mutex_unlock(&vmt_staged_lock);
	return sysfs_emit(buf, "%s\n", vmt_policy_names[policy]);
}

static ssize_t policy_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	int policy = sysfs_match_string(vmt_policy_names, buf);

	if (policy < 0)
		return policy;
	mutex_lock(&vmt_staged_lock);
	vmt_staged.policy = policy;
	mutex_unlock(&vmt_staged_lock);
	return count;
}

/* Bit i of the events setting is named vmt_event_names[i]. */
static const char * const vmt_event_names[] = {
	"switch", "switch-all", "task", "vma", "dma", "marker", "pagemap",
};

static ssize_t events_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	ssize_t len = 0;
	u32 events, i;

	mutex_lock(&vmt_staged_lock);
	events = vmt_staged.events;
	mutex_unlock(&vmt_staged_lock);
	for (i = 0; i < ARRAY_SIZE(vmt_event_names); i++)
		if (events & BIT(i))
			len += sysfs_emit_at(buf, len, len ? ",%s" : "%s", vmt_event_names[i]);
	return len + sysfs_emit_at(buf, len, "\n");
}

/* A comma list of event names, or "none"; nothing changes on a bad name. */
static ssize_t events_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	char *list, *p, *name;
	u32 events = 0;
	int i, err = 0;

	list = kstrndup(buf, count, GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	p = strim(list);
	if (strcmp(p, "none")) {
		while ((name = strsep(&p, ",")) && !err) {
			i = match_string(vmt_event_names, ARRAY_SIZE(vmt_event_names), name);
			if (i < 0)
				err = -EINVAL;
			else
				events |= BIT(i);
		}
	}
	kfree(list);
	if (err)
		return err;
	BUILD_BUG_ON(VMT_EVENTS != GENMASK(ARRAY_SIZE(vmt_event_names) - 1, 0));
	mutex_lock(&vmt_staged_lock);
	vmt_staged.events = events;
	mutex_unlock(&vmt_staged_lock);
	return count;
}

static struct kobj_attribute vmt_events_attr = __ATTR_RW(events);

static ssize_t targets_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	ssize_t len = 0;
	u32 i;

	mutex_lock(&vmt_staged_lock);
	if (vmt_staged.flags & VMT_CONFIG_SYSTEM_WIDE)
		len = sysfs_emit_at(buf, len, "all");
	for (i = 0; i < vmt_staged.nr_pids; i++)
		len += sysfs_emit_at(buf, len, i ? " %d" : "%d", vmt_staged.pids[i]);
	mutex_unlock(&vmt_staged_lock);
	return len + sysfs_emit_at(buf, len, "\n");
}

/* "all", or up to VMT_MAX_PIDS process ids separated by blanks. */
static ssize_t targets_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	struct vmt_settings next = {};
	char *copy, *cursor, *word;
	int pid, err = 0;

	copy = kstrndup(buf, count, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	cursor = strim(copy);
	if (!strcmp(cursor, "all")) {
		next.flags = VMT_CONFIG_SYSTEM_WIDE;
	} else {
		while ((word = strsep(&cursor, " \t\n")) != NULL) {
			if (!*word)
				continue;
			if (next.nr_pids == VMT_MAX_PIDS) {
				err = -EINVAL;
				break;
			}
			err = kstrtoint(word, 10, &pid);
			if (err || pid <= 0) {
				err = -EINVAL;
				break;
			}
			next.pids[next.nr_pids++] = pid;
		}
		if (!err && !next.nr_pids)
			err = -EINVAL;
	}
	kfree(copy);
	if (err)
		return err;

	mutex_lock(&vmt_staged_lock);
	vmt_staged.flags = (vmt_staged.flags & ~VMT_CONFIG_SYSTEM_WIDE) | next.flags;
	vmt_staged.nr_pids = next.nr_pids;
	memcpy(vmt_staged.pids, next.pids, sizeof(next.pids));
	mutex_unlock(&vmt_staged_lock);
	return count;
}

#define VMT_STATUS_ATTR(field)							\
static ssize_t field##_show(struct kobject *kobj, struct kobj_attribute *attr,	\
			    char *buf)						\
{										\
	struct vmt_status status;						\
										\
	vmt_session_status(vmt_session_default(), &status);			\
	return sysfs_emit(buf, "%llu\n", status.field);				\
}										\
static struct kobj_attribute vmt_##field##_attr = __ATTR_RO(field)

VMT_STATUS_ATTR(faults);
VMT_STATUS_ATTR(records);
VMT_STATUS_ATTR(lost);
VMT_STATUS_ATTR(protected);
VMT_STATUS_ATTR(restored);
VMT_STATUS_ATTR(skipped_vmas);
VMT_STATUS_ATTR(huge_pmds);
VMT_STATUS_ATTR(evictions);
VMT_STATUS_ATTR(overflows);
VMT_STATUS_ATTR(data_dropped);
VMT_STATUS_ATTR(events_missed);
VMT_STATUS_ATTR(deferred);
VMT_STATUS_ATTR(reprotections);
VMT_STATUS_ATTR(missed);

/* Records dropped on each possible CPU, in CPU order, blank-separated. */
static ssize_t lost_per_cpu_show(struct kobject *kobj, struct kobj_attribute *attr,
				 char *buf)
{
	u32 n = 0, i, cpus = num_possible_cpus();
	u64 *lost;
	ssize_t len = 0;

	lost = kcalloc(cpus, sizeof(*lost), GFP_KERNEL);
	if (!lost)
		return -ENOMEM;
	n = vmt_session_lost_per_cpu(vmt_session_default(), lost, cpus);
	for (i = 0; i < n; i++)
		len += sysfs_emit_at(buf, len, i ? " %llu" : "%llu", lost[i]);
	kfree(lost);
	return len + sysfs_emit_at(buf, len, "\n");
}

/* Each session in use, a line each (vmt_sessions_show()): session 0 is the one above. */
static ssize_t sessions_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return vmt_sessions_show(buf);
}

/* Exact mode's ranges, a line each: "PID START-END" (hex; PID 0: every target). */
static ssize_t exact_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return vmt_session_exact_show(buf);
}

/*
 * "add PID START-END", "remove PID START-END" (START and END in hex, END
 * exclusive; PID 0: every traced process), "add PID MAPPING", "remove PID
 * MAPPING" (a mapping's name as /proc/PID/maps shows it, or an address in
 * an anonymous mapping) or "clear": VMT_IOC_EXACT's ops.
 */
static ssize_t exact_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	struct vmt_exact_arg arg = {};
	unsigned long long start, end;
	char op[8], tail, *copy, *rest;
	int n, used = 0, err;
	u32 pid;

	copy = kstrndup(buf, count, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	rest = strim(copy);
	n = sscanf(rest, "%7s %u %n", op, &pid, &used);
	if (n == 1 && !strcmp(op, "clear")) {
		arg.op = VMT_EXACT_CLEAR;
	} else if (n == 2 && used && (!strcmp(op, "add") || !strcmp(op, "remove"))) {
		rest += used;
		arg.pid = pid;
		if (sscanf(rest, "%llx-%llx %c", &start, &end, &tail) == 2) {
			arg.op = op[0] == 'a' ? VMT_EXACT_ADD : VMT_EXACT_REMOVE;
			arg.start = start;
			arg.end = end;
		} else {
			arg.op = op[0] == 'a' ? VMT_EXACT_ADD_NAME : VMT_EXACT_REMOVE_NAME;
			arg.name_ptr = 1;	/* the name is @rest, in the kernel */
			arg.name_len = strlen(rest);
		}
	} else {
		kfree(copy);
		return -EINVAL;
	}
	err = vmt_session_exact(vmt_session_default(), &arg, arg.name_ptr ? rest : NULL);
	kfree(copy);
	return err ? err : count;
}

/* Exact records written since the last start. */
static ssize_t exact_accesses_show(struct kobject *kobj, struct kobj_attribute *attr,
				   char *buf)
{
	struct vmt_exact_arg arg = { .op = VMT_EXACT_COUNTS };

	vmt_session_exact(vmt_session_default(), &arg, NULL);
	return sysfs_emit(buf, "%llu\n", (unsigned long long)arg.accesses);
}

/* The cap on the pages the exact ranges span together (VMT_EXACT_CAP). */
static ssize_t exact_max_pages_show(struct kobject *kobj, struct kobj_attribute *attr,
				    char *buf)
{
	struct vmt_exact_arg arg = { .op = VMT_EXACT_COUNTS };

	vmt_session_exact(vmt_session_default(), &arg, NULL);
	return sysfs_emit(buf, "%llu\n", (unsigned long long)arg.max_pages);
}

static ssize_t exact_max_pages_store(struct kobject *kobj, struct kobj_attribute *attr,
				     const char *buf, size_t count)
{
	struct vmt_exact_arg arg = { .op = VMT_EXACT_CAP };
	int err = kstrtoull(buf, 0, &arg.max_pages);

	if (!err)
		err = vmt_session_exact(vmt_session_default(), &arg, NULL);
	return err ? err : count;
}

static struct kobj_attribute vmt_exact_attr = __ATTR_RW(exact);
static struct kobj_attribute vmt_exact_max_pages_attr = __ATTR_RW(exact_max_pages);
static struct kobj_attribute vmt_exact_accesses_attr = __ATTR_RO(exact_accesses);
static struct kobj_attribute vmt_abi_version_attr = __ATTR_RO(abi_version);
static struct kobj_attribute vmt_state_attr = __ATTR_RW(state);
static struct kobj_attribute vmt_ring_records_attr = __ATTR_RW(ring_records);
static struct kobj_attribute vmt_overwrite_attr = __ATTR_RW(overwrite);
static struct kobj_attribute vmt_targets_attr = __ATTR_RW(targets);
static struct kobj_attribute vmt_protect_attr = __ATTR_RW(protect);
static struct kobj_attribute vmt_follow_attr = __ATTR_RW(follow);
static struct kobj_attribute vmt_policy_attr = __ATTR_RW(policy);
static struct kobj_attribute vmt_lost_per_cpu_attr = __ATTR_RO(lost_per_cpu);
static struct kobj_attribute vmt_sessions_attr = __ATTR_RO(sessions);

static struct attribute *vmt_attrs[] = {
	&vmt_abi_version_attr.attr,
	&vmt_state_attr.attr,
	&vmt_ring_records_attr.attr,
	&vmt_overwrite_attr.attr,
	&vmt_targets_attr.attr,
	&vmt_protect_attr.attr,
	&vmt_follow_attr.attr,
	&vmt_enabled_pages_attr.attr,
	&vmt_policy_attr.attr,
	&vmt_reprotect_ms_attr.attr,
	&vmt_events_attr.attr,
	&vmt_data_dropped_attr.attr,
	&vmt_events_missed_attr.attr,
	&vmt_faults_attr.attr,
	&vmt_records_attr.attr,
	&vmt_lost_attr.attr,
	&vmt_lost_per_cpu_attr.attr,
	&vmt_sessions_attr.attr,
	&vmt_protected_attr.attr,
	&vmt_restored_attr.attr,
	&vmt_skipped_vmas_attr.attr,
	&vmt_huge_pmds_attr.attr,
	&vmt_evictions_attr.attr,
	&vmt_overflows_attr.attr,
	&vmt_deferred_attr.attr,
	&vmt_reprotections_attr.attr,
	&vmt_missed_attr.attr,
	&vmt_exact_attr.attr,
	&vmt_exact_accesses_attr.attr,
	&vmt_exact_max_pages_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(vmt);

int vmt_sysfs_init(void)
{
	int err;

	vmt_kobj = kobject_create_and_add("vmtrace", kernel_kobj);
	if (!vmt_kobj)
		return -ENOMEM;
	err = sysfs_create_groups(vmt_kobj, vmt_groups);
	if (err)
		kobject_put(vmt_kobj);
	return err;
}

void vmt_sysfs_exit(void)
{
	sysfs_remove_groups(vmt_kobj, vmt_groups);
	kobject_put(vmt_kobj);
}
