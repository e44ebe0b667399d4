// SPDX-License-Identifier: Apache-2.0
// One daemon per address, and every unix address form under the same rules
// (issue 25; docs/RELIABILITY.md, "Process resilience"):
//  * the address forms: unix:///abs, unix:/abs, unix:rel, unix-abstract:name;
//    "unix://rel" and over-long paths refused with a message;
//  * a second server on a live unix socket (another cuzk: the lock; another
//    program: the socket answers) or on a taken TCP port is refused, and the
//    first keeps serving (before: gRPC unlinked the socket and took it over,
//    and SO_REUSEPORT let two servers share a TCP port);
//  * a regular file (or a directory) at the socket path is refused and left
//    untouched (before: it was deleted);
//  * a stale socket (its listener gone) is replaced;
//  * unix_socket_mode applies to the one-slash form too;
//  * an abstract socket is refused unless allowed, and warned about.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include <grpcpp/grpcpp.h>

#include "cuzk/v1/proving.grpc.pb.h"
#include "daemon_test_support.hpp"
#include "grpc_service.hpp"
#include "listen_address.hpp"
#include "listen_security.hpp"

namespace {

using namespace cuzk;
namespace eng = cuzk::engine;
namespace fs = std::filesystem;
namespace pb = cuzk::v1;

bool answers(const std::string& uri) {
  auto stub = pb::ProvingEngine::NewStub(grpc::CreateChannel(uri, grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(3));
  pb::GetStatusResponse resp;
  return stub->GetStatus(&ctx, pb::GetStatusRequest(), &resp).ok();
}

std::string start_error(eng::engine& e, const std::string& address, const service::grpc_server_options& o = {}) {
  try {
    service::grpc_server s(e, address, o);
  } catch (const std::exception& x) {
    return x.what();
  }
  return "";
}

// A listening AF_UNIX socket that is not a cuzk (no lock file held).
struct foreign_listener {
  int fd = -1;
  explicit foreign_listener(const fs::path& p, bool listening = true) {
    fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::memcpy(a.sun_path, p.c_str(), p.native().size());
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0) << std::strerror(errno);
    if (listening) {
      EXPECT_EQ(::listen(fd, 4), 0);
    }
  }
  ~foreign_listener() { ::close(fd); }
};

TEST(listen_address, forms_are_classified_and_bad_ones_refused_with_a_reason) {
  using k = service::listen_address::kind;
  const auto a = service::parse_listen_address("unix:///run/cuzk.sock");
  EXPECT_EQ(a.k, k::unix_path);
  EXPECT_EQ(a.path, "/run/cuzk.sock");
  const auto b = service::parse_listen_address("unix:/run/cuzk.sock");
  EXPECT_EQ(b.k, k::unix_path);
  EXPECT_EQ(b.path, "/run/cuzk.sock");
  EXPECT_EQ(service::parse_listen_address("unix:run/cuzk.sock").path, "run/cuzk.sock");
  const auto c = service::parse_listen_address("unix-abstract:cuzk");
  EXPECT_EQ(c.k, k::unix_abstract);
  EXPECT_EQ(c.abstract_name, "cuzk");
  EXPECT_EQ(service::parse_listen_address("127.0.0.1:9820").k, k::tcp);
  EXPECT_THROW(service::parse_listen_address("unix://run/cuzk.sock"), std::invalid_argument);
  EXPECT_THROW(service::parse_listen_address("unix:"), std::invalid_argument);
  EXPECT_THROW(service::parse_listen_address("unix-abstract:"), std::invalid_argument);
  EXPECT_THROW(service::parse_listen_address("unix:///" + std::string(120, 'x')), std::invalid_argument);
}

TEST(listen_address, second_server_on_a_live_unix_socket_is_refused_and_the_first_keeps_serving) {
  test::bare_engine d("cuzk-listen");
  const fs::path sock = d.dir / "cuzk.sock";
  for (const std::string form : {"unix://", "unix:"}) {
    service::grpc_server first(*d.e, form + sock.string(), {});
    const std::string err = start_error(*d.e, "unix://" + sock.string());
    EXPECT_NE(err.find("another cuzk daemon is running on unix socket"), std::string::npos) << err;
    const std::string err2 = start_error(*d.e, "unix:" + sock.string());
    EXPECT_NE(err2.find("another cuzk daemon"), std::string::npos) << err2;
    EXPECT_TRUE(answers("unix://" + sock.string())) << form;
  }
  // a program that is not cuzk listens there: the socket answers, so no takeover
  const fs::path other = d.dir / "other.sock";
  {
    foreign_listener l(other);
    const std::string err = start_error(*d.e, "unix://" + other.string());
    EXPECT_NE(err.find("another process is listening on unix socket"), std::string::npos) << err;
    struct stat st {};
    ASSERT_EQ(::lstat(other.c_str(), &st), 0);
    EXPECT_TRUE(S_ISSOCK(st.st_mode));
  }
}

TEST(listen_address, regular_file_or_directory_at_the_socket_path_is_left_untouched) {
  test::bare_engine d("cuzk-listen");
  const fs::path file = d.dir / "precious.sock";
  { std::ofstream(file) << "keep me"; }
  for (const std::string form : {"unix://", "unix:"}) {
    const std::string err = start_error(*d.e, form + file.string());
    EXPECT_NE(err.find("exists and is not a socket (a regular file)"), std::string::npos) << err;
    EXPECT_NE(err.find("left untouched"), std::string::npos) << err;
    std::ifstream in(file);
    std::string s;
    std::getline(in, s);
    EXPECT_EQ(s, "keep me");
  }
  const fs::path dir = d.dir / "adir";
  fs::create_directories(dir / "inside");
  const std::string err = start_error(*d.e, "unix://" + dir.string());
  EXPECT_NE(err.find("(a directory)"), std::string::npos) << err;
  EXPECT_TRUE(fs::exists(dir / "inside"));
}

TEST(listen_address, stale_socket_is_replaced_and_the_mode_applies_to_every_unix_form) {
  test::bare_engine d("cuzk-listen");
  for (const std::string form : {"unix://", "unix:"}) {
    const fs::path sock = d.dir / ("stale" + std::to_string(form.size()) + ".sock");
    { foreign_listener gone(sock, false); }  // bound then closed: the file stays, nobody listens
    ASSERT_TRUE(fs::exists(fs::symlink_status(sock)));
    service::grpc_server_options o;
    o.unix_socket_mode = 0660;
    service::grpc_server s(*d.e, form + sock.string(), o);
    struct stat st {};
    ASSERT_EQ(::stat(sock.c_str(), &st), 0);
    EXPECT_TRUE(S_ISSOCK(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0660u) << form;
    EXPECT_TRUE(answers("unix://" + sock.string()));
  }
}

TEST(listen_address, taken_tcp_port_is_refused_without_sharing_it) {
  test::bare_engine d("cuzk-listen");
  service::grpc_server first(*d.e, "127.0.0.1:0", {});
  ASSERT_GT(first.port(), 0);
  const std::string addr = "127.0.0.1:" + std::to_string(first.port());
  const std::string err = start_error(*d.e, addr);
  EXPECT_NE(err.find("another process is listening on that port"), std::string::npos) << err;
  EXPECT_TRUE(answers(addr));
}

TEST(listen_address, abstract_socket_is_refused_unless_allowed_and_warned_about) {
  test::bare_engine d("cuzk-listen");
  const std::string name = "unix-abstract:cuzk-test-" + std::to_string(std::random_device{}());
  const std::string err = start_error(*d.e, name);
  EXPECT_NE(err.find("abstract unix socket"), std::string::npos) << err;
  EXPECT_NE(err.find("daemon.allow_abstract_socket"), std::string::npos) << err;
  service::grpc_server_options o;
  o.allow_abstract_socket = true;
  {
    service::grpc_server s(*d.e, name, o);
    EXPECT_TRUE(answers(name));
  }
  EXPECT_TRUE(service::parse_config("[daemon]\nallow_abstract_socket = true\n").allow_abstract_socket);
  EXPECT_FALSE(service::daemon_config().allow_abstract_socket);
  service::daemon_config c;
  c.listen = name;
  const auto w = service::security_warnings(c);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("daemon.unix_socket_mode does not apply"), std::string::npos) << w[0];
  EXPECT_EQ(w[0].find("other machines"), std::string::npos) << w[0];  // the old, wrong warning
  c.listen = "unix:/run/cuzk.sock";
  EXPECT_TRUE(service::security_warnings(c).empty());
}

}  // namespace
