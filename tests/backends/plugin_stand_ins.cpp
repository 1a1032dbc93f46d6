// Stand-ins for the cuda plugin's failure cases (tests/backends/cuda_plugin_test.cpp), built as
// shared libraries beside the tests (backends/CMakeLists.txt):
//   FULCRUM_STAND_IN_DEPENDENCY  a library the next one needs, left where the loader cannot find it
//                                (a CUDA library missing at run time);
//   FULCRUM_STAND_IN_NEEDS_DEP   a "plugin" that needs it;
//   FULCRUM_STAND_IN_NO_ENTRY    a loadable library without the plugin's entry point.
#if defined(FULCRUM_STAND_IN_DEPENDENCY)
extern "C" int fulcrum_stand_in_dependency() { return 1; }
#elif defined(FULCRUM_STAND_IN_NEEDS_DEP)
extern "C" int fulcrum_stand_in_dependency();
extern "C" int fulcrum_stand_in_plugin() { return fulcrum_stand_in_dependency() + 1; }
#else
extern "C" int fulcrum_stand_in_not_a_plugin() { return 0; }
#endif
