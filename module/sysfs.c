// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/vmtrace: one value per file (docs/ABI/sysfs-kernel-vmtrace).
 * Settings are staged in their own files and applied through `state`, as in
 * DAMON: writing "on" applies them and starts tracing, "commit" applies them
 * only, "off" stops.
 */
#include <linux/kobject.h>
#include <linux/kstrtox.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include <uapi/linux/vmtrace.h>

#include "../kernel/session.h"
#include "vmtrace.h"

static DEFINE_MUTEX(vmt_staged_lock);
static struct vmt_settings vmt_staged;	/* under vmt_staged_lock */

static struct kobject *vmt_kobj;

static ssize_t abi_version_show(struct kobject *kobj, struct kobj_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, "%u\n", VMT_ABI_VERSION);
}

static ssize_t state_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  READ_ONCE(vmt_session.state) == VMT_STATE_ON ? "on" : "off");
}

static int vmt_apply_staged(void)
{
	int err;

	mutex_lock(&vmt_staged_lock);
	err = vmt_session_configure(&vmt_staged);
	mutex_unlock(&vmt_staged_lock);
	return err;
}

static ssize_t state_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	int err;

	if (sysfs_streq(buf, "on")) {
		err = vmt_apply_staged();
		if (!err)
			err = vmt_session_start();
	} else if (sysfs_streq(buf, "off")) {
		err = vmt_session_stop();
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
	if (vmt_settings_check(&check))
		return -EINVAL;
	mutex_lock(&vmt_staged_lock);
	vmt_staged.ring_records = n;
	mutex_unlock(&vmt_staged_lock);
	return count;
}

static ssize_t overwrite_show(struct kobject *kobj, struct kobj_attribute *attr,
			      char *buf)
{
	bool on;

	mutex_lock(&vmt_staged_lock);
	on = vmt_staged.flags & VMT_CONFIG_OVERWRITE;
	mutex_unlock(&vmt_staged_lock);
	return sysfs_emit(buf, "%d\n", on);
}

static ssize_t overwrite_store(struct kobject *kobj, struct kobj_attribute *attr,
			       const char *buf, size_t count)
{
	bool on;
	int err;

	err = kstrtobool(buf, &on);
	if (err)
		return err;
	mutex_lock(&vmt_staged_lock);
	if (on)
		vmt_staged.flags |= VMT_CONFIG_OVERWRITE;
	else
		vmt_staged.flags &= ~VMT_CONFIG_OVERWRITE;
	mutex_unlock(&vmt_staged_lock);
	return count;
}

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
	next.ring_records = vmt_staged.ring_records;
	next.flags |= vmt_staged.flags & VMT_CONFIG_OVERWRITE;
	vmt_staged = next;
	mutex_unlock(&vmt_staged_lock);
	return count;
}

#define VMT_STATUS_ATTR(field)							\
static ssize_t field##_show(struct kobject *kobj, struct kobj_attribute *attr,	\
			    char *buf)						\
{										\
	struct vmt_status status;						\
										\
	vmt_session_status(&status);						\
	return sysfs_emit(buf, "%llu\n", status.field);				\
}										\
static struct kobj_attribute vmt_##field##_attr = __ATTR_RO(field)

VMT_STATUS_ATTR(faults);
VMT_STATUS_ATTR(records);
VMT_STATUS_ATTR(lost);

static struct kobj_attribute vmt_abi_version_attr = __ATTR_RO(abi_version);
static struct kobj_attribute vmt_state_attr = __ATTR_RW(state);
static struct kobj_attribute vmt_ring_records_attr = __ATTR_RW(ring_records);
static struct kobj_attribute vmt_overwrite_attr = __ATTR_RW(overwrite);
static struct kobj_attribute vmt_targets_attr = __ATTR_RW(targets);

static struct attribute *vmt_attrs[] = {
	&vmt_abi_version_attr.attr,
	&vmt_state_attr.attr,
	&vmt_ring_records_attr.attr,
	&vmt_overwrite_attr.attr,
	&vmt_targets_attr.attr,
	&vmt_faults_attr.attr,
	&vmt_records_attr.attr,
	&vmt_lost_attr.attr,
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
