# SPDX-License-Identifier: Apache-2.0
# Sweeps on Slurm (scripts/slurm-sweep) and Kubernetes (docs/kubernetes/).
#  - slurm_script: the script against fake sbatch/squeue/scancel, and the Kubernetes manifests
#    against the job scripts it writes (seconds; label slurm).
#  - slurm_cluster: a real single-node cluster (munged, slurmctld, slurmd of Debian 12's
#    slurm-wlm 22.05, started and stopped by the test on free ports): submit a 4-shard sweep,
#    cancel a running task, resume, merge, compare with one run (about 30 s; labels slurm,
#    cluster: the sanitizer reruns of scripts/test-all leave it out). Needs root; fails when
#    Slurm is not installed (scripts/install-deps --test installs it).
if(TARGET chsim)
  add_test(NAME slurm_script
           COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/script_test.py $<TARGET_FILE:chsim>
                   ${PROJECT_SOURCE_DIR})
  set_tests_properties(slurm_script PROPERTIES LABELS slurm TIMEOUT ${CHSIM_HANG_S})
  add_test(NAME slurm_cluster
           COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/cluster_test.py $<TARGET_FILE:chsim>
                   ${PROJECT_SOURCE_DIR})
  set_tests_properties(slurm_cluster PROPERTIES LABELS "slurm;cluster" TIMEOUT ${CHSIM_HANG_S})
endif()
