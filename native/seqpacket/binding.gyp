{
  "targets": [
    {
      "target_name": "jobio_seqpacket",
      "sources": ["src/addon.cc", "src/seqpacket_server.cc", "src/evidence.cc", "src/job_cgroup.cc", "src/delivery.cc", "src/children_usage.cc", "src/file_lock.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")", "../profiler/include"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions"],
      "cflags_cc": ["-std=c++17", "-Wall", "-Wextra", "-fexceptions"]
    }
  ]
}
