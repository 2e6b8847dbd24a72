#ifndef PDFGATE_CLINUXFS_H
#define PDFGATE_CLINUXFS_H
// Linux file-system calls Swift's Glibc module does not expose (they need _GNU_SOURCE).

/// rename(2) that fails with EEXIST instead of replacing the target: the library's publish
/// step, for files and directories alike. Returns 0 or -1 with errno set.
int pdfgate_rename_noreplace(const char *from, const char *to);

#endif
