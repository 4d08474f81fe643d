/* SPDX-License-Identifier: MIT */
/* The frames a crash signature skips (crashsig.h). */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "crashsig.h"

/* Whole names (up to the parameters or a clone suffix). */
static const char *const skip_names[] = {
	/* glibc: abort and raise, and pthread_kill under them */
	"abort",
	"raise",
	"gsignal",
	"pthread_kill",
	"__pthread_kill",
	"__pthread_kill_internal",
	"__pthread_kill_implementation",
	"tgkill",
	"__libc_raise",
	"__GI_raise",
	"__GI_abort",
	"__GI___pthread_kill",
	/* glibc: assert, fortify and stack protector failures, malloc's checks */
	"__assert_fail",
	"__assert_fail_base",
	"__assert_perror_fail",
	"__assert",
	"__libc_message",
	"__libc_message_impl",
	"__libc_fatal",
	"__fortify_fail",
	"__fortify_fail_abort",
	"__chk_fail",
	"__stack_chk_fail",
	"__stack_chk_fail_local",
	"malloc_printerr",
	"__malloc_assert",
	"__libc_assert_fail",
	/* musl */
	"a_crash",
	"__block_all_sigs",
	"__block_app_sigs",
	"__syscall_cp_asm",
	/* libstdc++ and libc++abi: terminate, unexpected, throw */
	"std::terminate",
	"std::unexpected",
	"std::__terminate",
	"__cxxabiv1::__terminate",
	"__cxxabiv1::__unexpected",
	"__gnu_cxx::__verbose_terminate_handler",
	"__cxa_throw",
	"__cxa_rethrow",
	"__cxa_pure_virtual",
	"__cxa_deleted_virtual",
	"__cxa_call_terminate",
	"__cxa_call_unexpected",
	"__cxa_bad_cast",
	"__cxa_bad_typeid",
	"__cxa_throw_bad_array_new_length",
	"std::__glibcxx_assert_fail",
	"std::__replacement_assert",
	"_Unwind_RaiseException",
	"_Unwind_Resume",
	"_Unwind_Resume_or_Rethrow",
};

/* Name prefixes: whole families of report helpers. */
static const char *const skip_prefixes[] = {
	"std::__throw_",   /* std::__throw_out_of_range_fmt, ... */
	"__gnu_debug::",   /* _GLIBCXX_DEBUG's error formatter */
	"__asan_",	   /* __asan_report_load4, __asan_handle_no_return, ... */
	"__asan::",	   /* ReportGenericError, ... */
	"__sanitizer_",	   /* __sanitizer_print_stack_trace, ... */
	"__sanitizer::",   /* Die, CheckFailed, ... */
	"__ubsan_handle_", /* __ubsan_handle_add_overflow, ... */
	"__ubsan::",	   /* Diag, ... */
	"__interceptor_",  /* the sanitizers' libc interceptors */
	"___interceptor_", /* the same, newer runtimes */
	"__lsan::",	   /* leak reports */
	"__tsan::",	   /* race reports */
	"__msan::",	   /* uninitialized-read reports */
	"__msan_",	   /* __msan_warning, ... */
	"__tsan_",	   /* __tsan_report_... */
};

bool psym_crashsig_skip(const char *name)
{
	size_t n;

	if (!name || !*name)
		return false;
	/* Up to the parameters or a clone suffix: "std::terminate()", "x.cold". */
	n = strcspn(name, "( .");
	for (size_t i = 0; i < sizeof(skip_prefixes) / sizeof(skip_prefixes[0]); i++) {
		size_t k = strlen(skip_prefixes[i]);

		if (n >= k && !strncmp(name, skip_prefixes[i], k))
			return true;
	}
	for (size_t i = 0; i < sizeof(skip_names) / sizeof(skip_names[0]); i++)
		if (strlen(skip_names[i]) == n && !strncmp(name, skip_names[i], n))
			return true;
	return false;
}
