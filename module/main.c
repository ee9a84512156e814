// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace module glue: init and exit, the /dev/vmtrace misc device, and the
 * /sys/kernel/vmtrace directory.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/kobject.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>

#include <uapi/linux/vmtrace.h>

static int vmt_dev_open(struct inode *inode, struct file *file)
{
	/* The node is 0600, but a descriptor passed on must not widen that. */
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	return 0;
}

static long vmt_ioctl_version(void __user *arg)
{
	struct vmt_version v = {
		.abi_version = VMT_ABI_VERSION,
		.record_size = VMT_RECORD_SIZE,
		.meta_size = sizeof(struct vmt_ring_meta),
		.nr_cpus = num_possible_cpus(),
	};

	return copy_to_user(arg, &v, sizeof(v)) ? -EFAULT : 0;
}

static long vmt_dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case VMT_IOC_VERSION:
		return vmt_ioctl_version((void __user *)arg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations vmt_dev_fops = {
	.owner = THIS_MODULE,
	.open = vmt_dev_open,
	.unlocked_ioctl = vmt_dev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice vmt_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "vmtrace",
	.fops = &vmt_dev_fops,
	.mode = 0600,
};

static ssize_t abi_version_show(struct kobject *kobj, struct kobj_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, "%u\n", VMT_ABI_VERSION);
}

static struct kobj_attribute vmt_abi_version_attr = __ATTR_RO(abi_version);

static struct attribute *vmt_attrs[] = {
	&vmt_abi_version_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(vmt);

static struct kobject *vmt_kobj;

static int __init vmt_init(void)
{
	int err;

	vmt_kobj = kobject_create_and_add("vmtrace", kernel_kobj);
	if (!vmt_kobj)
		return -ENOMEM;
	err = sysfs_create_groups(vmt_kobj, vmt_groups);
	if (err)
		goto out_put_kobj;
	err = misc_register(&vmt_miscdev);
	if (err)
		goto out_remove_groups;
	pr_info("loaded, ABI %u\n", VMT_ABI_VERSION);
	return 0;

out_remove_groups:
	sysfs_remove_groups(vmt_kobj, vmt_groups);
out_put_kobj:
	kobject_put(vmt_kobj);
	return err;
}

static void __exit vmt_exit(void)
{
	misc_deregister(&vmt_miscdev);
	sysfs_remove_groups(vmt_kobj, vmt_groups);
	kobject_put(vmt_kobj);
	pr_info("unloaded\n");
}

module_init(vmt_init);
module_exit(vmt_exit);
MODULE_DESCRIPTION("vmtrace: memory-reference tracer");
MODULE_LICENSE("GPL");
