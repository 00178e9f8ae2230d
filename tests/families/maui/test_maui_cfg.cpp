// test_maui_cfg.cpp - golden tests for maui_cfg.cpp: defaults (reference
// MPriority.c), every syntax form, DEFAULT credentials, Maui time strings (MTime.c:MUTimeFromString),
// errors naming file:line, unknown parameters collected.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "maui_cfg.hpp"

namespace mfprio::maui {
namespace {

Config parse_ok(const std::string& text, Flavor f = Flavor::Maui) {
  Config c;
  std::string why;
  EXPECT_TRUE(parse_maui_cfg(text, "maui.cfg", f, &c, &why)) << why;
  return c;
}

std::string parse_err(const std::string& text, Flavor f = Flavor::Maui) {
  Config c = Config::defaults(f);
  c.sub_weight[0] = 777;  // must survive a failed parse
  std::string why;
  EXPECT_FALSE(parse_maui_cfg(text, "maui.cfg", f, &c, &why));
  EXPECT_EQ(c.sub_weight[0], 777) << "a failed parse changed *out";
  return why;
}

int ci(CredKind k) { return static_cast<int>(k); }

TEST(MauiCfgDefaults, EveryComponentWeightOneOnlyQueueTimeSubWeightOne) {
  const Config c = Config::defaults(Flavor::Maui);
  for (int i = 0; i < kComponents; ++i) {
    EXPECT_EQ(c.comp_weight[i], 1);
    EXPECT_EQ(c.comp_cap[i], 0);
  }
  for (int i = 0; i < kSubs; ++i) {
    EXPECT_EQ(c.sub_weight[i], i == static_cast<int>(Sub::QueueTime) ? 1 : 0) << i;
    EXPECT_EQ(c.sub_cap[i], 0);
  }
  EXPECT_EQ(c.xf_min_wclimit, 120);
  EXPECT_EQ(c.fs_policy, FsPolicy::None);
  EXPECT_EQ(c.fs_interval, 43200);
  EXPECT_EQ(c.fs_depth, 8);
  EXPECT_EQ(c.fs_decay, 1.0);
  EXPECT_EQ(c.accrual, AccrualPolicy::QueuePolicy);
  EXPECT_FALSE(c.use_system_queue_time);
  EXPECT_EQ(Config::defaults(Flavor::Moab).xf_min_wclimit, 0);
}

TEST(MauiCfgDefaults, DefaultConstructedConfigEqualsMauiDefaults) {
  const Config a;
  const Config b = Config::defaults(Flavor::Maui);
  EXPECT_EQ(a.comp_weight, b.comp_weight);
  EXPECT_EQ(a.comp_weight_percent, b.comp_weight_percent);
  EXPECT_EQ(a.sub_weight, b.sub_weight);
  EXPECT_EQ(a.sub_cap, b.sub_cap);
  EXPECT_EQ(a.xf_min_wclimit, b.xf_min_wclimit);
}

TEST(MauiCfgDefaults, EmptyTextGivesTheDefaults) {
  const Config c = parse_ok("");
  EXPECT_EQ(c.weight(Sub::QueueTime), 1);
  EXPECT_TRUE(c.ignored.empty());
}

TEST(MauiCfgSyntax, NameValueWithBlanksTabsEqualsAndComments) {
  const Config c = parse_ok(
      "# priority\n"
      "QUEUETIMEWEIGHT   20\n"
      "XFACTORWEIGHT\t5   # trailing comment\n"
      "FSWEIGHT=100\n"
      "  RESWEIGHT 3\r\n"
      "SERVICEWCAP 1000\n"
      "CREDCAP -5\n");
  EXPECT_EQ(c.weight(Sub::QueueTime), 20);
  EXPECT_EQ(c.weight(Sub::XFactor), 5);
  EXPECT_EQ(c.weight(Component::Fs), 100);
  EXPECT_EQ(c.weight(Component::Res), 3);
  EXPECT_EQ(c.cap(Component::Serv), 1000);
  EXPECT_EQ(c.cap(Component::Cred), -5);  // kept, ignored by pricing
}

TEST(MauiCfgSyntax, NamesAreCaseInsensitiveCredentialNamesAreNot) {
  const Config c = parse_ok(
      "queuetimeweight 7\n"
      "usercfg[Bob] priority=5\n"
      "USERCFG[bob] PRIORITY=6\n");
  EXPECT_EQ(c.weight(Sub::QueueTime), 7);
  ASSERT_NE(c.find(CredKind::User, "Bob"), nullptr);
  EXPECT_EQ(c.find(CredKind::User, "Bob")->priority, 5);
  EXPECT_EQ(c.find(CredKind::User, "bob")->priority, 6);
}

TEST(MauiCfgSyntax, BackslashJoinsTheNextLine) {
  const Config c = parse_ok(
      "QOSCFG[hi] PRIORITY=100 \\\n"
      "    QTWEIGHT=5000 XFWEIGHT=10\n"
      "BYPASSWEIGHT 2\n");
  const CredCfg* q = c.find(CredKind::Qos, "hi");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->priority, 100);
  EXPECT_EQ(q->qt_weight, 5000);
  EXPECT_EQ(q->xf_weight, 10);
  EXPECT_EQ(c.weight(Sub::Bypass), 2);
}

TEST(MauiCfgSyntax, CredentialLinesOfEveryKindMergeAttributes) {
  const Config c = parse_ok(
      "USERCFG[john] PRIORITY=2000\n"
      "USERCFG[paul] PRIORITY=-1000\n"
      "GROUPCFG[staff] PRIORITY=10000 CLASSWEIGHT=7\n"
      "ACCOUNTCFG[chem] FSTARGET=25\n"
      "ACCOUNTCFG[chem] PRIORITY=3\n"
      "QOSCFG[special] QTWEIGHT=5000 XFWEIGHT=5000 QTTARGET=2:00:00 XFTARGET=4.5\n"
      "CLASSCFG[batch] PRIORITY=9 FSTARGET=10+\n");
  EXPECT_EQ(c.find(CredKind::User, "john")->priority, 2000);
  EXPECT_EQ(c.find(CredKind::User, "paul")->priority, -1000);
  EXPECT_EQ(c.find(CredKind::Group, "staff")->priority, 10000);
  EXPECT_EQ(c.find(CredKind::Group, "staff")->class_weight, 7);
  EXPECT_EQ(c.find(CredKind::Account, "chem")->priority, 3);
  EXPECT_EQ(c.find(CredKind::Account, "chem")->fs_target.value, 25.0);
  const CredCfg* q = c.find(CredKind::Qos, "special");
  EXPECT_EQ(q->qt_weight, 5000);
  EXPECT_EQ(q->xf_weight, 5000);
  EXPECT_EQ(q->qt_target, 7200);
  EXPECT_DOUBLE_EQ(q->xf_target, 4.5);
  EXPECT_EQ(c.find(CredKind::Class, "batch")->fs_target.mode, TargetMode::Floor);
  EXPECT_EQ(c.find(CredKind::User, "nobody"), nullptr);
}

TEST(MauiCfgSyntax, FsTargetModes) {
  const Config c = parse_ok(
      "USERCFG[a] FSTARGET=50\n"
      "USERCFG[b] FSTARGET=10+\n"
      "USERCFG[c] FSTARGET=10.5-\n"
      "USERCFG[d] FSTARGET=5^\n"
      "USERCFG[e] FSTARGET=5%\n");
  EXPECT_EQ(c.find(CredKind::User, "a")->fs_target.mode, TargetMode::Target);
  EXPECT_EQ(c.find(CredKind::User, "b")->fs_target.mode, TargetMode::Floor);
  EXPECT_EQ(c.find(CredKind::User, "c")->fs_target.mode, TargetMode::Ceiling);
  EXPECT_DOUBLE_EQ(c.find(CredKind::User, "c")->fs_target.value, 10.5);
  EXPECT_EQ(c.find(CredKind::User, "d")->fs_target.mode, TargetMode::CapAbsolute);
  EXPECT_EQ(c.find(CredKind::User, "e")->fs_target.mode, TargetMode::CapRelative);
}

TEST(MauiCfgSyntax, DefaultCredentialsAreKeptApart) {
  const Config c = parse_ok(
      "USERCFG[DEFAULT] PRIORITY=10 FSTARGET=5\n"
      "QOSCFG[DEFAULT] PRIORITY=3\n"
      "classcfg[DEFAULT] PRIORITY=4\n");
  EXPECT_EQ(c.default_cred[ci(CredKind::User)].priority, 10);
  EXPECT_EQ(c.default_cred[ci(CredKind::User)].fs_target.value, 5.0);
  EXPECT_EQ(c.default_cred[ci(CredKind::Qos)].priority, 3);
  EXPECT_EQ(c.default_cred[ci(CredKind::Class)].priority, 4);
  EXPECT_EQ(c.find(CredKind::User, "DEFAULT"), nullptr);
}

// Only DEFAULT (upper case) is the fallback; a user
// called "default" is just that user.
TEST(MauiCfgSyntax, LowerCaseDefaultIsACredentialNotTheFallback) {
  const Config c = parse_ok(
      "USERCFG[default] PRIORITY=10\n"
      "QOSCFG[Default] PRIORITY=3\n");
  EXPECT_EQ(c.default_cred[ci(CredKind::User)].priority, 0);
  EXPECT_EQ(c.default_cred[ci(CredKind::Qos)].priority, 0);
  ASSERT_NE(c.find(CredKind::User, "default"), nullptr);
  EXPECT_EQ(c.find(CredKind::User, "default")->priority, 10);
  ASSERT_NE(c.find(CredKind::Qos, "Default"), nullptr);
  EXPECT_EQ(c.find(CredKind::Qos, "Default")->priority, 3);
}

TEST(MauiCfgSyntax, FairSharePolicyIntervalDepthDecay) {
  const Config c = parse_ok(
      "FSPOLICY DEDICATEDPES%\n"
      "FSINTERVAL 24:00:00\n"
      "FSDEPTH 7\n"
      "FSDECAY 0.80\n"
      "XFMINWCLIMIT 0:10\n"
      "JOBPRIOACCRUALPOLICY fullpolicy\n"
      "USESYSTEMQUEUETIME TRUE\n");
  EXPECT_EQ(c.fs_policy, FsPolicy::DedicatedPES);
  EXPECT_TRUE(c.fs_percent);
  EXPECT_EQ(c.fs_interval, 86400);
  EXPECT_EQ(c.fs_depth, 7);
  EXPECT_DOUBLE_EQ(c.fs_decay, 0.8);
  EXPECT_EQ(c.xf_min_wclimit, 600);  // "0:10" is hours:minutes
  EXPECT_EQ(c.accrual, AccrualPolicy::FullPolicy);
  EXPECT_TRUE(c.use_system_queue_time);
  EXPECT_EQ(parse_ok("FSDEPTH 30\n").fs_depth, kMaxFsDepth);  // Maui caps at 24
  EXPECT_EQ(parse_ok("FSPOLICY UTILIZEDPS\n").fs_policy, FsPolicy::UtilizedPS);
  EXPECT_FALSE(parse_ok("FSPOLICY DEDICATEDPS\n").fs_percent);
  EXPECT_EQ(parse_ok("FSPOLICY TRUE\n").fs_policy, FsPolicy::DedicatedPS);  // old spelling
  EXPECT_EQ(parse_ok("FSPOLICY DEDICATEDPS\nFSPOLICY none\n").fs_policy, FsPolicy::None);
}

TEST(MauiCfgSyntax, ComponentWeightWithPercentStoresTenAndThePercent) {
  const Config c = parse_ok("FSWEIGHT 20%\n");
  EXPECT_EQ(c.weight(Component::Fs), 10);
  EXPECT_EQ(c.comp_weight_percent[static_cast<int>(Component::Fs)], 20);
}

TEST(MauiCfgSyntax, EveryWeightAndCapParameterIsRead) {
  for (int i = 0; i < kSubs; ++i) {
    const SubInfo& s = sub_info(static_cast<Sub>(i));
    const Config c = parse_ok(std::string(s.weight_param) + " 17\n" + s.cap_param + " 23\n",
                              Flavor::Moab);
    EXPECT_EQ(c.sub_weight[i], 17) << s.weight_param;
    EXPECT_EQ(c.sub_cap[i], 23) << s.cap_param;
  }
  for (int i = 0; i < kComponents; ++i) {
    const ComponentInfo& k = component_info(static_cast<Component>(i));
    const Config c = parse_ok(std::string(k.weight_param) + " 17\n" + k.cap_param + " 23\n");
    EXPECT_EQ(c.comp_weight[i], 17) << k.weight_param;
    EXPECT_EQ(c.comp_cap[i], 23) << k.cap_param;
  }
  EXPECT_EQ(parse_ok("USAGECONSUMEDWEIGHT 4\n").weight(Sub::Consumed), 4);
}

TEST(MauiCfgSyntax, MoabOnlyParametersAreIgnoredUnderMaui) {
  const Config maui = parse_ok("STARTCOUNTWEIGHT 5\nGROUPCFG[g] FSWEIGHT=3\n", Flavor::Maui);
  EXPECT_EQ(maui.weight(Sub::StartCount), 0);
  ASSERT_EQ(maui.ignored.size(), 2u);
  EXPECT_EQ(maui.ignored[0].name, "STARTCOUNTWEIGHT");
  EXPECT_EQ(maui.ignored[1].name, "GROUPCFG[g] FSWEIGHT");
  const Config moab = parse_ok("STARTCOUNTWEIGHT 5\nGROUPCFG[g] FSWEIGHT=3\n", Flavor::Moab);
  EXPECT_EQ(moab.weight(Sub::StartCount), 5);
  EXPECT_EQ(moab.find(CredKind::Group, "g")->fs_weight, 3);
  EXPECT_TRUE(moab.ignored.empty());
}

TEST(MauiCfgUnknown, OtherParametersAreCollectedWithTheirLines) {
  const Config c = parse_ok(
      "SERVERHOST head01\n"
      "RMCFG[base] TYPE=PBS\n"
      "QUEUETIMEWEIGHT 2\n"
      "USERCFG[bob] MAXJOB=4 PRIORITY=8\n"
      "QUEUETIMEWEIGHT[p1] 9\n");
  ASSERT_EQ(c.ignored.size(), 4u);
  EXPECT_EQ(c.ignored[0].name, "SERVERHOST");
  EXPECT_EQ(c.ignored[0].value, "head01");
  EXPECT_EQ(c.ignored[0].line, 1);
  EXPECT_EQ(c.ignored[0].file, "maui.cfg");
  EXPECT_EQ(c.ignored[1].name, "RMCFG[base]");
  EXPECT_EQ(c.ignored[1].value, "TYPE=PBS");
  EXPECT_EQ(c.ignored[2].name, "USERCFG[bob] MAXJOB");
  EXPECT_EQ(c.ignored[2].value, "4");
  EXPECT_EQ(c.ignored[2].line, 4);
  EXPECT_EQ(c.ignored[3].name, "QUEUETIMEWEIGHT[p1]");  // partition weights: never read
  EXPECT_EQ(c.weight(Sub::QueueTime), 2);
  EXPECT_EQ(c.find(CredKind::User, "bob")->priority, 8);
}

TEST(MauiCfgUnknown, IncludeDirectiveIsReportedNotFollowed) {
  const Config c = parse_ok("#INCLUDE /etc/maui-extra.cfg\nQUEUETIMEWEIGHT 3 # INCLUDE x\n");
  ASSERT_EQ(c.ignored.size(), 1u);
  EXPECT_EQ(c.ignored[0].name, "#INCLUDE");
  EXPECT_EQ(c.ignored[0].value, "/etc/maui-extra.cfg");
  EXPECT_EQ(c.weight(Sub::QueueTime), 3);
}

TEST(MauiCfgErrors, BadValueNamesFileLineParameterAndValue) {
  EXPECT_EQ(parse_err("# c\nQUEUETIMEWEIGHT 2\nXFACTORWEIGHT ten\n"),
            "maui.cfg:3: XFACTORWEIGHT 'ten': expected an integer weight");
  EXPECT_EQ(parse_err("FSWEIGHT 1.5\n"), "maui.cfg:1: FSWEIGHT '1.5': expected an integer weight");
  EXPECT_EQ(parse_err("\nUSERCFG[bob] PRIORITY=high\n"),
            "maui.cfg:2: USERCFG[bob] PRIORITY 'high': expected an integer priority");
}

TEST(MauiCfgErrors, EveryKindOfBadPriorityValueIsRejected) {
  for (const char* bad : {
           "FSDECAY 1.5\n", "FSDECAY -0.1\n", "FSINTERVAL 0\n", "FSINTERVAL 12h\n",
           "FSDEPTH 0\n", "FSPOLICY FAIR\n", "ATTRWEIGHT 5%\n", "JOBPRIOACCRUALPOLICY SOMETIMES\n",
           "USESYSTEMQUEUETIME maybe\n", "XFMINWCLIMIT -5\n", "QUEUETIMECAP\n",
           "QOSCFG[q] XFTARGET=fast\n", "QOSCFG[q] QTTARGET=1:2:3:4:5\n",
           "ACCOUNTCFG[a] FSTARGET=10*\n", "USERCFG[a] PRIORITY\n", "USERCFG[] PRIORITY=1\n",
           "USERCFG[a PRIORITY=1\n", "RESWEIGHT 99999999999999999999\n", "FSWEIGHT x%\n"}) {
    const std::string why = parse_err(bad);
    EXPECT_EQ(why.rfind("maui.cfg:1: ", 0), 0u) << bad << " -> " << why;
  }
}

TEST(MauiCfgErrors, FsIntervalLongerThanAYearAndADayIsRefusedAtInit) {
  // Without the bound FSINTERVAL 9223372036854775807 passed here and every
  // decay pass then failed (the window arithmetic overflowed).
  EXPECT_EQ(parse_err("FSINTERVAL 9223372036854775807\n"),
            "maui.cfg:1: FSINTERVAL '9223372036854775807': expected a positive duration of at most 366 days");
  EXPECT_EQ(parse_err("FSINTERVAL 366:00:00:01\n"),
            "maui.cfg:1: FSINTERVAL '366:00:00:01': expected a positive duration of at most 366 days");
  EXPECT_EQ(parse_err("FSINTERVAL 366:00:00:00\nFSWEIGHT x\n"), "maui.cfg:2: FSWEIGHT 'x': expected an integer weight");
}

TEST(MauiTime, BareSecondsUseCIntegerSyntax) {
  int64_t s = -1;
  EXPECT_TRUE(parse_maui_time("90", &s));
  EXPECT_EQ(s, 90);
  EXPECT_TRUE(parse_maui_time("010", &s));  // strtol base 0: octal
  EXPECT_EQ(s, 8);
  EXPECT_TRUE(parse_maui_time("0x10", &s));
  EXPECT_EQ(s, 16);
  EXPECT_TRUE(parse_maui_time("0", &s));
  EXPECT_EQ(s, 0);
  EXPECT_TRUE(parse_maui_time("INFINITY", &s));
  EXPECT_EQ(s, kInfiniteTime);
}

TEST(MauiTime, TwoFieldsAreHoursAndMinutes) {
  int64_t s = -1;
  EXPECT_TRUE(parse_maui_time("1:30", &s));
  EXPECT_EQ(s, 5400);
  EXPECT_TRUE(parse_maui_time("4:20:00", &s));
  EXPECT_EQ(s, 15600);
  EXPECT_TRUE(parse_maui_time("1:02:03", &s));
  EXPECT_EQ(s, 3723);
  EXPECT_TRUE(parse_maui_time("2:01:00:05", &s));
  EXPECT_EQ(s, 2 * 86400 + 3600 + 5);
  EXPECT_TRUE(parse_maui_time("00:00:90", &s));  // fields are not range-checked
  EXPECT_EQ(s, 90);
}

TEST(MauiTime, MalformedStringsAreRejected) {
  int64_t s = 0;
  for (const char* bad : {"", "  ", "abc", "1h", "08", "-5", "1::2", ":30", "1:2:3:4:5",
                          "12:00_06/01", "1.5", "1:-2"})
    EXPECT_FALSE(parse_maui_time(bad, &s)) << bad;
}

}  // namespace
}  // namespace mfprio::maui

// ---- the sites' own files ---------------------------------------------------

namespace mfprio::maui {
namespace {

std::string data_file(const std::string& name, std::string* path) {
  const char* dir = std::getenv("MFPRIO_TEST_DATA");
  EXPECT_NE(dir, nullptr) << "MFPRIO_TEST_DATA not set";
  *path = std::string(dir ? dir : "") + "/admins/" + name;
  std::ifstream in(*path);
  EXPECT_TRUE(in.good()) << "missing " << *path;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Maui's sample maui.cfg says FSPOLICY PSDEDICATED, which is not in Maui 3.2's
// table: Maui keeps the policy it had (NONE), and so does mfprio, warning.
TEST(MauiCfgSites, PsDedicatedIsReadAsMauiReadsItWithAWarning) {
  std::string path;
  const std::string text = data_file("psdedicated-maui.cfg", &path);
  Config c;
  std::string why;
  ASSERT_TRUE(parse_maui_cfg(text, path, Flavor::Maui, &c, &why)) << why;
  EXPECT_EQ(c.fs_policy, FsPolicy::None);
  EXPECT_EQ(c.fs_policy_name, "NONE");
  EXPECT_EQ(c.fs_depth, 7);
  EXPECT_EQ(c.weight(Component::Fs), 100);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find(path + ":22: FSPOLICY 'PSDEDICATED'"), std::string::npos) << c.warnings[0];
  EXPECT_NE(c.warnings[0].find("fair share off"), std::string::npos) << c.warnings[0];
  EXPECT_NE(c.warnings[0].find("DEDICATEDPS"), std::string::npos) << c.warnings[0];
  // After a policy was set, PSDEDICATED keeps that one, as Maui does.
  c = parse_ok("FSPOLICY DEDICATEDPES\nFSPOLICY PSDEDICATED\n");
  EXPECT_EQ(c.fs_policy, FsPolicy::DedicatedPES);
  EXPECT_EQ(c.warnings.size(), 1u);
}

// Every FSPOLICY value of Maui 3.2 / Moab 5 and what it charges.
TEST(MauiCfgSites, EveryFsPolicyValueMauiAccepts) {
  const std::pair<const char*, FsPolicy> cases[] = {
      {"NONE", FsPolicy::None},           {"DEDICATEDPS", FsPolicy::DedicatedPS},
      {"DEDICATEDPES", FsPolicy::DedicatedPES}, {"UTILIZEDPS", FsPolicy::UtilizedPS},
      {"SDEDICATEDPES", FsPolicy::DedicatedPS}, {"PDEDICATEDPS", FsPolicy::DedicatedPS},
      {"pdedicatedps%", FsPolicy::DedicatedPS}, {"TRUE", FsPolicy::DedicatedPS},
      {"FALSE", FsPolicy::None}};
  for (const auto& [v, fp] : cases)
    for (Flavor f : {Flavor::Maui, Flavor::Moab}) {
      const Config c = parse_ok(std::string("FSPOLICY ") + v + "\n", f);
      EXPECT_EQ(c.fs_policy, fp) << v;
      EXPECT_TRUE(c.warnings.empty()) << v;
    }
  EXPECT_EQ(parse_ok("FSPOLICY sdedicatedpes\n").fs_policy_name, "SDEDICATEDPES");
  EXPECT_TRUE(parse_ok("FSPOLICY PDEDICATEDPS%\n").fs_percent);
  const std::string e = parse_err("FSPOLICY DEDICATED\n");
  EXPECT_NE(e.find("maui.cfg:1: FSPOLICY 'DEDICATED'"), std::string::npos) << e;
  EXPECT_NE(e.find("SDEDICATEDPES"), std::string::npos) << e;
}

TEST(MauiCfgSites, MoabAccrueWithExceptionsAndNegativePriorities) {
  std::string path;
  const std::string text = data_file("accrue-moab.cfg", &path);
  Config c;
  std::string why;
  ASSERT_TRUE(parse_maui_cfg(text, path, Flavor::Moab, &c, &why)) << why;
  EXPECT_EQ(c.accrual, AccrualPolicy::Accrue);
  EXPECT_EQ(c.accrual_name, "ACCRUE");
  EXPECT_EQ(c.prio_exceptions, kExcSoftPolicy | kExcHardPolicy | kExcDepends);
  EXPECT_TRUE(c.negative_priority);
  EXPECT_EQ(c.fs_policy, FsPolicy::DedicatedPS);
  EXPECT_EQ(c.find(CredKind::User, "lower")->priority, -900);
  // ACCRUE's pause cannot be read off one record: said once, at the line.
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find(path + ":8: JOBPRIOEXCEPTIONS with ACCRUE"), std::string::npos) << c.warnings[0];
}

TEST(MauiCfgSites, EveryMoabAccrualValueAndException) {
  const std::pair<const char*, AccrualPolicy> cases[] = {
      {"ACCRUE", AccrualPolicy::Accrue},           {"RESET", AccrualPolicy::Reset},
      {"ALWAYS", AccrualPolicy::Always},           {"QUEUEPOLICY", AccrualPolicy::QueuePolicy},
      {"QUEUEPOLICYRESET", AccrualPolicy::QueuePolicy}, {"FULLPOLICY", AccrualPolicy::FullPolicy},
      {"FULLPOLICYRESET", AccrualPolicy::FullPolicy},   {"QUEUEPOLICYUSER", AccrualPolicy::QueuePolicy}};
  for (const auto& [v, a] : cases) {
    const Config c = parse_ok(std::string("JOBPRIOACCRUALPOLICY ") + v + "\n", Flavor::Moab);
    EXPECT_EQ(c.accrual, a) << v;
    EXPECT_EQ(c.accrual_name, v);
    EXPECT_EQ(c.warnings.size(), std::string(v) == "QUEUEPOLICYUSER" ? 1u : 0u) << v;
  }
  // Moab's words are not Maui 3.2's.
  std::string e = parse_err("JOBPRIOACCRUALPOLICY ACCRUE\n");
  EXPECT_NE(e.find("maui.cfg:1: JOBPRIOACCRUALPOLICY 'ACCRUE'"), std::string::npos) << e;
  EXPECT_NE(e.find("Maui 3.2"), std::string::npos) << e;
  // Every exception, comma or blank separated, case-insensitive.
  Config c = parse_ok("JOBPRIOACCRUALPOLICY RESET\nJOBPRIOEXCEPTIONS batchhold,systemhold USERHOLD defer\n",
                      Flavor::Moab);
  EXPECT_EQ(c.prio_exceptions, kExcBatchHold | kExcSystemHold | kExcUserHold | kExcDefer);
  EXPECT_TRUE(c.warnings.empty());  // all four holds: nothing to tell apart
  c = parse_ok("JOBPRIOACCRUALPOLICY RESET\nJOBPRIOEXCEPTIONS USERHOLD,IDLEPOLICY\n", Flavor::Moab);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("maui.cfg:2:"), std::string::npos) << c.warnings[0];
  EXPECT_NE(c.warnings[0].find("which kind of hold"), std::string::npos) << c.warnings[0];
  // Exceptions under another policy are read, said to be ignored, and dropped.
  c = parse_ok("JOBPRIOEXCEPTIONS SOFTPOLICY\nJOBPRIOACCRUALPOLICY FULLPOLICY\n", Flavor::Moab);
  EXPECT_EQ(c.prio_exceptions, 0u);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("maui.cfg:1: JOBPRIOEXCEPTIONS is read only with"), std::string::npos);
  EXPECT_EQ(parse_ok("JOBPRIOEXCEPTIONS NONE\n", Flavor::Moab).warnings.size(), 0u);
  e = parse_err("JOBPRIOEXCEPTIONS SOFTPOLICY,HOLD\n", Flavor::Moab);
  EXPECT_NE(e.find("maui.cfg:1: JOBPRIOEXCEPTIONS 'HOLD'"), std::string::npos) << e;
  // Not a Maui parameter: ignored there, as before.
  EXPECT_EQ(parse_ok("JOBPRIOEXCEPTIONS SOFTPOLICY\n").ignored.size(), 1u);
}

TEST(MauiCfgSites, EnableNegJobPriorityIsAPriorityParameter) {
  for (Flavor f : {Flavor::Maui, Flavor::Moab}) {
    Config c = parse_ok("ENABLENEGJOBPRIORITY TRUE\n", f);
    EXPECT_TRUE(c.negative_priority);
    EXPECT_TRUE(c.ignored.empty());
    EXPECT_FALSE(parse_ok("ENABLENEGJOBPRIORITY false\n", f).negative_priority);
  }
  EXPECT_FALSE(Config::defaults(Flavor::Moab).negative_priority);
  const std::string e = parse_err("ENABLENEGJOBPRIORITY maybe\n");
  EXPECT_NE(e.find("maui.cfg:1: ENABLENEGJOBPRIORITY 'maybe'"), std::string::npos) << e;
}

// Every error of the file in one run, in file order; misspelled priority
// parameters get the nearest name; Maui's other names are still ignored.
TEST(MauiCfgSites, EveryErrorInOneRunWithDidYouMean) {
  const std::string e = parse_err(
      "TARGWEIGHT 5\n"               // 1: misspelled TARGETWEIGHT
      "QUEUETIMEWEIGHT ten\n"        // 2: bad value
      "RMCFG[base] TYPE=PBS\n"       // 3: not a priority parameter
      "FSUSERWIEGHT 10\n"            // 4: misspelled FSUSERWEIGHT
      "USERCFG[bob] PRIORITY=x\n"    // 5: bad attribute
      "FSDEPTH 0\n");                // 6: out of range
  std::vector<std::string> lines;
  std::stringstream ss(e);
  for (std::string l; std::getline(ss, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), 5u) << e;
  EXPECT_EQ(lines[0], "maui.cfg:1: TARGWEIGHT '5': unknown priority parameter (did you mean TARGETWEIGHT?)");
  EXPECT_NE(lines[1].find("maui.cfg:2: QUEUETIMEWEIGHT 'ten'"), std::string::npos);
  EXPECT_EQ(lines[2], "maui.cfg:4: FSUSERWIEGHT '10': unknown priority parameter (did you mean FSUSERWEIGHT?)");
  EXPECT_NE(lines[3].find("maui.cfg:5: USERCFG[bob] PRIORITY 'x'"), std::string::npos);
  EXPECT_NE(lines[4].find("maui.cfg:6: FSDEPTH '0'"), std::string::npos);
  // Names Maui itself reads that sit near a priority parameter are not typos.
  const Config c =
      parse_ok("AFSWEIGHT 5\nGFSWEIGHT 5\nUFSWEIGHT 1\nQOSQTWEIGHT 3\nRESDEPTH 4\nSRDEPTH 2\nNODECFG[n1] SPEED=1\n");
  EXPECT_EQ(c.ignored.size(), 7u);
  // A Moab-only name in a maui.cfg is ignored, not a misspelling.
  EXPECT_EQ(parse_ok("DEADLINEWEIGHT 5\n").ignored.size(), 1u);
}

}  // namespace
}  // namespace mfprio::maui
