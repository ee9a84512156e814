// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/vmtrace: ioctls to configure, start, stop and query a session, and
 * mmap of its per-CPU rings. A file's session is its private_data: NULL
 * (session 0, as sysfs's) until it configures, which takes it a session of
 * its own when session 0 is another's (core.c); closing it lets it go.
 */
#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <uapi/linux/vmtrace.h>

#include "core.h"
#include "device.h"

static int vmt_dev_open(struct inode *inode, struct file *file)
{
	/* Root only, whatever mode the node was given. */
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	/* misc_open() left the miscdevice there. */
	file->private_data = NULL;
	return 0;
}

static int vmt_dev_release(struct inode *inode, struct file *file)
{
	vmt_session_disown(file, file->private_data);
	return 0;
}

/* The session @file acts on. */
static struct vmt_session *vmt_file_session(struct file *file)
{
	return file->private_data ? file->private_data : vmt_session_default();
}

static long vmt_ioctl_version(void __user *arg)
{
	struct vmt_version v = {
		.abi_version = VMT_ABI_VERSION,
		.record_size = VMT_RECORD_SIZE,
		.meta_size = sizeof(struct vmt_ring_meta),
		.nr_cpus = nr_cpu_ids,
	};

	return copy_to_user(arg, &v, sizeof(v)) ? -EFAULT : 0;
}

static bool vmt_all_zero(const __u64 *words, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (words[i])
			return false;
	return true;
}

static long vmt_ioctl_configure(struct file *file, const void __user *arg)
{
	struct vmt_settings *settings;
	struct vmt_config cfg;
	u32 pids[VMT_MAX_PIDS];
	long err;
	u32 i;

	if (copy_from_user(&cfg, arg, sizeof(cfg)))
		return -EFAULT;
	if (cfg.reserved0 ||
	    !vmt_all_zero(cfg.reserved, ARRAY_SIZE(cfg.reserved)))
		return -EINVAL;
	if (cfg.nr_pids > VMT_MAX_PIDS)
		return -EINVAL;
	if (cfg.nr_pids &&
	    copy_from_user(pids, u64_to_user_ptr(cfg.pids_ptr), cfg.nr_pids * sizeof(u32)))
		return -EFAULT;

	settings = kzalloc(sizeof(*settings), GFP_KERNEL);
	if (!settings)
		return -ENOMEM;
	settings->ring_records = cfg.ring_records;
	settings->flags = cfg.flags;
	settings->nr_pids = cfg.nr_pids;
	settings->enabled_pages = cfg.enabled_pages;
	settings->policy = cfg.policy;
	settings->reprotect_ms = cfg.reprotect_ms;
	settings->events = cfg.events;
	for (i = 0; i < cfg.nr_pids; i++) {
		if (pids[i] > PID_MAX_LIMIT) {
			kfree(settings);
			return -EINVAL;
		}
		settings->pids[i] = pids[i];
	}
	err = vmt_session_claim(file, (struct vmt_session **)&file->private_data, settings);
	kfree(settings);
	return err;
}

static long vmt_ioctl_status(struct vmt_session *s, void __user *arg)
{
	struct vmt_status status;

	vmt_session_status(s, &status);
	return copy_to_user(arg, &status, sizeof(status)) ? -EFAULT : 0;
}

static long vmt_ioctl_geometry(struct vmt_session *s, void __user *arg)
{
	struct vmt_geometry geometry;
	int err;

	err = vmt_session_geometry(s, &geometry);
	if (err)
		return err;
	return copy_to_user(arg, &geometry, sizeof(geometry)) ? -EFAULT : 0;
}

static long vmt_ioctl_marker(struct vmt_session *s, const void __user *arg)
{
	struct vmt_marker_arg m;
	char text[VMT_MAX_MARKER_LEN];

	if (copy_from_user(&m, arg, sizeof(m)))
		return -EFAULT;
	if (m.len > VMT_MAX_MARKER_LEN || !vmt_all_zero(m.reserved, ARRAY_SIZE(m.reserved)))
		return -EINVAL;
	if (copy_from_user(text, u64_to_user_ptr(m.text_ptr), m.len))
		return -EFAULT;
	return vmt_session_marker(s, m.id, text, m.len);
}

/* VMT_IOC_EXACT: exact mode's ranges; the counters are copied back whatever the op did. */
static long vmt_ioctl_exact(struct vmt_session *s, void __user *arg)
{
	struct vmt_exact_arg e;
	long err;

	if (copy_from_user(&e, arg, sizeof(e)))
		return -EFAULT;
	/* @features is filled in, as the counters are: not checked. */
	if (!vmt_all_zero(e.reserved, ARRAY_SIZE(e.reserved)))
		return -EINVAL;
	err = vmt_session_exact(s, &e, NULL);
	if (copy_to_user(arg, &e, sizeof(e)))
		return -EFAULT;
	return err;
}

/* write(): a marker, its id (4 bytes) and then its text. */
static ssize_t vmt_dev_write(struct file *file, const char __user *buf, size_t count,
			     loff_t *ppos)
{
	char text[VMT_MAX_MARKER_LEN];
	u32 id;
	int err;

	if (count < sizeof(id) || count - sizeof(id) > VMT_MAX_MARKER_LEN)
		return -EINVAL;
	if (copy_from_user(&id, buf, sizeof(id)) ||
	    copy_from_user(text, buf + sizeof(id), count - sizeof(id)))
		return -EFAULT;
	err = vmt_session_marker(vmt_file_session(file), id, text, count - sizeof(id));
	return err ? err : count;
}

static long vmt_dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct vmt_session *s = vmt_file_session(file);
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case VMT_IOC_VERSION:
		return vmt_ioctl_version(uarg);
	case VMT_IOC_CONFIGURE:
		return vmt_ioctl_configure(file, uarg);
	case VMT_IOC_START:
		return vmt_session_start(s);
	case VMT_IOC_STOP:
		return vmt_session_stop(s);
	case VMT_IOC_STATUS:
		return vmt_ioctl_status(s, uarg);
	case VMT_IOC_GEOMETRY:
		return vmt_ioctl_geometry(s, uarg);
	case VMT_IOC_MARKER:
		return vmt_ioctl_marker(s, uarg);
	case VMT_IOC_EXACT:
		return vmt_ioctl_exact(s, uarg);
	default:
		return -ENOTTY;
	}
}

static int vmt_dev_mmap(struct file *file, struct vm_area_struct *vma)
{
	return vmt_session_mmap(vmt_file_session(file), vma);
}

static __poll_t vmt_dev_poll(struct file *file, poll_table *wait)
{
	return vmt_session_poll(vmt_file_session(file), file, wait);
}

static const struct file_operations vmt_dev_fops = {
	.owner = THIS_MODULE,
	.open = vmt_dev_open,
	.release = vmt_dev_release,
	.unlocked_ioctl = vmt_dev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = vmt_dev_mmap,
	.poll = vmt_dev_poll,
	.write = vmt_dev_write,
	.llseek = noop_llseek,
};

static struct miscdevice vmt_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "vmtrace",
	.fops = &vmt_dev_fops,
	.mode = 0600,
};

int vmt_device_register(void)
{
	return misc_register(&vmt_miscdev);
}

void vmt_device_unregister(void)
{
	misc_deregister(&vmt_miscdev);
}
