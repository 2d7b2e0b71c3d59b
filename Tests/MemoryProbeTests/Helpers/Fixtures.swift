// Fixed /proc texts captured from real processes (Linux 6.18, x86-64, 4 KiB pages), and
// older-kernel variants, for the parsing tests.

enum Fixtures {
    /// `/proc/self/statm` of a small process.
    static let statm = "765 408 380 5 0 123 0\n"

    /// `/proc/self/status` of a small process, tabs and padding as the kernel prints them.
    static let status = """
        Name:\tcat
        Umask:\t0022
        State:\tR (running)
        Tgid:\t4421
        Ngid:\t0
        Pid:\t4421
        PPid:\t4419
        TracerPid:\t0
        Uid:\t0\t0\t0\t0
        Gid:\t0\t0\t0\t0
        FDSize:\t256
        Groups:\t 
        NStgid:\t4421
        NSpid:\t4421
        NSpgid:\t4419
        NSsid:\t2446
        Kthread:\t0
        VmPeak:\t    3060 kB
        VmSize:\t    3060 kB
        VmLck:\t       0 kB
        VmPin:\t       0 kB
        VmHWM:\t    1736 kB
        VmRSS:\t    1736 kB
        RssAnon:\t     112 kB
        RssFile:\t    1624 kB
        RssShmem:\t       0 kB
        VmData:\t     360 kB
        VmStk:\t     132 kB
        VmExe:\t      20 kB
        VmLib:\t    1528 kB
        VmPTE:\t      44 kB
        VmSwap:\t       0 kB
        HugetlbPages:\t       0 kB
        CoreDumping:\t0
        THP_enabled:\t1
        untag_mask:\t0xffffffffffffffff
        Threads:\t1
        SigQ:\t0/96365
        SigPnd:\t0000000000000000
        ShdPnd:\t0000000000000000
        SigBlk:\t0000000000000000
        SigIgn:\t0000000000000000
        SigCgt:\t0000000000000000
        CapInh:\t0000000000000000
        CapPrm:\t000001fffeffffff
        CapEff:\t000001fffeffffff
        CapBnd:\t000001fffeffffff
        CapAmb:\t0000000000000000
        NoNewPrivs:\t0
        Seccomp:\t0
        Seccomp_filters:\t0
        Speculation_Store_Bypass:\tvulnerable
        SpeculationIndirectBranch:\talways enabled
        Cpus_allowed:\t3
        Cpus_allowed_list:\t0-1
        Mems_allowed:\t00000000,00000001
        Mems_allowed_list:\t0
        voluntary_ctxt_switches:\t0
        nonvoluntary_ctxt_switches:\t0

        """

    /// `/proc/self/smaps_rollup` on Linux 6.18 (has Pss_Dirty, Pss_Anon, Pss_File, Pss_Shmem).
    static let smapsRollup = """
        563600de5000-7fff5fa87000 ---p 00000000 00:00 0                          [rollup]
        Rss:                1680 kB
        Pss:                 518 kB
        Pss_Dirty:           112 kB
        Pss_Anon:            112 kB
        Pss_File:            406 kB
        Pss_Shmem:             0 kB
        Shared_Clean:       1500 kB
        Shared_Dirty:          0 kB
        Private_Clean:        68 kB
        Private_Dirty:       112 kB
        Referenced:         1680 kB
        Anonymous:           112 kB
        KSM:                   0 kB
        LazyFree:              0 kB
        AnonHugePages:         0 kB
        ShmemPmdMapped:        0 kB
        FilePmdMapped:         0 kB
        Shared_Hugetlb:        0 kB
        Private_Hugetlb:       0 kB
        Swap:                  0 kB
        SwapPss:               0 kB
        Locked:                0 kB

        """

    /// `/proc/self/smaps_rollup` as Linux 4.14–5.6 print it: no Pss_* breakdown.
    static let smapsRollupLinux414 = """
        00400000-7ffd6c9f3000 ---p 00000000 00:00 0                              [rollup]
        Rss:               29568 kB
        Pss:               20044 kB
        Shared_Clean:      10240 kB
        Shared_Dirty:          0 kB
        Private_Clean:      1200 kB
        Private_Dirty:     18128 kB
        Referenced:        29568 kB
        Anonymous:         18100 kB
        LazyFree:              0 kB
        AnonHugePages:     10240 kB
        ShmemPmdMapped:        0 kB
        Shared_Hugetlb:        0 kB
        Private_Hugetlb:       0 kB
        Swap:                  0 kB
        SwapPss:               0 kB
        Locked:                0 kB

        """
}

extension Fixtures {
    /// `/proc/meminfo` of a 24 GB machine (Linux 6.1), first lines.
    static let meminfo = """
        MemTotal:       24683656 kB
        MemFree:         1203420 kB
        MemAvailable:   19754312 kB
        Buffers:          812344 kB
        Cached:         17031532 kB
        SwapCached:            0 kB

        """

    /// `/proc/self/cgroup` on a pure cgroup v2 system (systemd user session).
    static let cgroupV2 = "0::/user.slice/user-1000.slice/session-3.scope\n"

    /// `/proc/self/cgroup` on a hybrid system: v1 controllers, the memory controller in a
    /// container's group, and an empty v2 line.
    static let cgroupHybrid = """
        9:name=systemd:/
        8:pids:/
        4:memory:/process_api/a254ef056c4b7d80abd807551b6daf15
        2:cpu,cpuacct:/
        0::/

        """

    /// Three mappings of `/proc/self/smaps`: a file under `/var/tmp/store`, one in a folder whose
    /// name only starts like it, and an anonymous one (header lines as the kernel pads them).
    static let smaps = """
        55ad5688d000-55ad5688f000 r--p 00000000 fe:00 253911                     /var/tmp/store/entries/00ab cd
        Size:                  8 kB
        Rss:                   8 kB
        Pss:                   8 kB
        VmFlags: rd mr mw me 
        55ad5688f000-55ad56894000 r--p 00000000 fe:00 253912                     /var/tmp/store-2/entries/01
        Size:                 20 kB
        Rss:                  20 kB
        VmFlags: rd mr mw me 
        7f1c2c000000-7f1c2c021000 rw-p 00000000 00:00 0 
        Size:                132 kB
        Rss:                   4 kB
        VmFlags: rd wr mr mw me nr sd 
        7f1c31a6d000-7f1c31a6f000 r--s 00000000 fe:00 253913                     /var/tmp/store/index (deleted)
        Size:                  8 kB
        Rss:                   4 kB
        VmFlags: rd sh mr mw me 

        """
}
